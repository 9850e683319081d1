// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
@testable import EUAHeadless
import FoundationEssentials
import EUATestSupport
import Testing

/// Follow mode's cookie jar (one per flow, for both transports): RFC 6265's rules it keeps, and the hostile
/// `Set-Cookie` fields it ignores, each with its exact input.
@Suite("headless follow mode: the flow's cookie jar", .onOwnThreads)
struct CookieJarTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func jar(_ fields: [String], from url: String) -> CookieJar {
        var jar = CookieJar()
        for field in fields { jar.store(field, from: URL(string: url)!, now: now) }
        return jar
    }

    static func header(_ jar: CookieJar, _ url: String) -> String? {
        jar.header(for: URL(string: url)!, now: now)
    }

    @Test("a cookie set over http goes back over https to the same host (any port), and to no other host")
    func httpToHTTPS() {
        let jar = Self.jar(["session=s1; Path=/; HttpOnly"], from: "http://127.0.0.1:8000/authorize?x=1")
        #expect(Self.header(jar, "https://127.0.0.1:8443/consent") == "session=s1")
        #expect(Self.header(jar, "http://127.0.0.2:8000/consent") == nil)
    }

    @Test("Domain: the host's parent is sent to its subdomains; a top-level or foreign domain is refused")
    func domain() {
        let parent = Self.jar(["sid=1; Domain=.example.com"], from: "https://login.example.com/")
        #expect(Self.header(parent, "https://auth.example.com/x") == "sid=1")
        #expect(Self.header(parent, "https://example.com/") == "sid=1")
        #expect(Self.header(parent, "https://badexample.com/") == nil)
        #expect(Self.jar(["sid=1; Domain=com"], from: "https://login.example.com/").cookies.isEmpty)
        #expect(Self.jar(["sid=1; Domain=other.org"], from: "https://login.example.com/").cookies.isEmpty)
        #expect(Self.jar(["sid=1; Domain=0.0.1"], from: "http://127.0.0.1/").cookies.isEmpty)
        let hostOnly = Self.jar(["sid=1"], from: "https://login.example.com/")
        #expect(Self.header(hostOnly, "https://sub.login.example.com/") == nil)
    }

    @Test("Secure: never set by an http answer, never sent over http")
    func secure() {
        #expect(Self.jar(["s=1; Secure"], from: "http://127.0.0.1/").cookies.isEmpty)
        let jar = Self.jar(["s=1; Secure"], from: "https://127.0.0.1/")
        #expect(Self.header(jar, "https://127.0.0.1/") == "s=1")
        #expect(Self.header(jar, "http://127.0.0.1/") == nil)
    }

    @Test("Path: the default is the request's directory; longer paths are sent first; /o does not match /other")
    func path() {
        let jar = Self.jar(["a=1; Path=/o", "b=2", "c=3; Path=/"], from: "http://h.test/o/authorize")
        #expect(Self.header(jar, "http://h.test/o/authorize") == "a=1; b=2; c=3")
        #expect(Self.header(jar, "http://h.test/other") == "c=3")
        #expect(Self.header(jar, "http://h.test/") == "c=3")
    }

    @Test("Max-Age=0 and an Expires in the past delete; a later field replaces the value")
    func deletion() {
        #expect(Self.jar(["s=1", "s=; Max-Age=0"], from: "http://h.test/").cookies.isEmpty)
        #expect(
            Self.jar(
                ["s=1", "s=\"\"; expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=-1; Path=/"], from: "http://h.test/"
            ).cookies.isEmpty)
        #expect(Self.jar(["s=1", "s=; expires=Thu, 01 Jan 1970 00:00:00 GMT"], from: "http://h.test/").cookies.isEmpty)
        let replaced = Self.jar(["s=1", "s=2; Max-Age=3600"], from: "http://h.test/")
        #expect(Self.header(replaced, "http://h.test/") == "s=2")
        #expect(replaced.header(for: URL(string: "http://h.test/")!, now: Self.now.addingTimeInterval(3601)) == nil)
    }

    @Test("hostile fields are ignored: no name, no '=', control characters, over 4096 bytes; at most 50 cookies")
    func hostile() {
        for field in ["=x", "novalue", "a=b\u{01}c", "a\u{7F}=b", "", ";", "a=" + String(repeating: "x", count: 4096)] {
            #expect(Self.jar([field], from: "http://h.test/").cookies.isEmpty, "\(field.prefix(20))")
        }
        let many = Self.jar((0..<60).map { "c\($0)=\($0)" }, from: "http://h.test/")
        #expect(many.cookies.count == 50 && many.cookies.first?.name == "c10" && many.cookies.last?.name == "c59")
    }

    @Test("Expires dates in RFC 6265's lenient forms; a date out of range is no date")
    func dates() {
        let expected = Date(timeIntervalSince1970: 784_111_777)
        #expect(CookieDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == expected)
        #expect(CookieDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == expected)
        #expect(CookieDate.parse("Sun Nov  6 08:49:37 1994") == expected)
        #expect(CookieDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
        #expect(CookieDate.parse("Tue, 29 Feb 2028 23:59:59 GMT") == Date(timeIntervalSince1970: 1_835_481_599))
        for text in [
            "not a date", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
            "Sun, 06 Nov 1500 08:49:37 GMT", "",
        ] {
            #expect(CookieDate.parse(text) == nil, "\(text)")
        }
    }
}
