// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
@testable import EUAHeadless
import Foundation
import ExternalUserAgentNet
import EUATestSupport
import Testing

/// Follow mode's choice of transport: plain sockets for `http` (libcurl never opened), libcurl for `https`, and
/// one cookie jar across both — asserted on what the page servers recorded.
@Suite("headless follow mode: the transport per scheme", .onOwnThreads, .timeLimit(.minutes(2)))
struct FollowTransportTests {
    static let options = ["mode": "follow", "form.username": "alice", "form.password": "right"]

    static func browser(_ extra: [String: String] = [:]) throws -> BrowserFollow {
        try BrowserFollow(
            script: HeadlessScript(options: options.merging(extra) { $1 }),
            redirectURI: URL(string: FollowPagesServer.redirectURI)!, stop: StopSignal())
    }

    @Test("a plain-http flow signs in over plain sockets and never opens libcurl")
    func plainHTTP() throws {
        let server = try FollowPagesServer()
        var browser = try Self.browser()
        let callback = try browser.callbackURL(from: server.authorizationURL())
        #expect(callback.absoluteString == "http://127.0.0.1:9/cb?code=good-code&state=st-1")
        #expect(!browser.transport.usesLibcurl, "http went over plain sockets")
        let log = try server.log()
        #expect(
            log.map { "\($0.method) \($0.path)" } == [
                "GET /authorize", "GET /login", "POST /login", "GET /consent", "POST /consent",
            ])
        #expect(log[3].cookie && log[4].cookie, "the session cookie went back")
    }

    @Test("an https flow goes through libcurl")
    func https() throws {
        let ca = try TestCA()
        let server = try FollowPagesServer(tls: ca)
        var browser = try Self.browser(["ca-file": ca.caCertificate])
        #expect(
            try browser.callbackURL(from: server.authorizationURL()).absoluteString
                == "http://127.0.0.1:9/cb?code=good-code&state=st-1")
        #expect(browser.transport.usesLibcurl)
        #expect(try server.log().filter { $0.path == "/consent" }.allSatisfy(\.cookie))
    }

    @Test("a flow that goes from http to https keeps the cookie the http server set")
    func httpThenHTTPS() throws {
        let ca = try TestCA()
        let plain = try FollowPagesServer()
        let secure = try FollowPagesServer(tls: ca)
        let next = "\(secure.base)/authorize?nocookie=1&redirect_uri=\(FollowPagesServer.redirectURI)&state=st-2"
        let to = next.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        var browser = try Self.browser(["ca-file": ca.caCertificate])
        let callback = try browser.callbackURL(from: URL(string: "\(plain.base)/upgrade?to=\(to)")!)
        #expect(callback.absoluteString == "http://127.0.0.1:9/cb?code=good-code&state=st-2")
        #expect(try plain.log().map(\.path) == ["/upgrade"])
        let log = try secure.log()
        #expect(
            log.map { "\($0.method) \($0.path)" } == [
                "GET /authorize", "GET /login", "POST /login", "GET /consent", "POST /consent",
            ])
        #expect(
            log[0].cookie,
            "the cookie set over http went along from the first https request (nocookie=1: the https server set none)")
        #expect(log[3].cookie && log[4].cookie, "the cookie set over http reached the https consent page")
    }
}

/// The choice itself, for each kind of URL and proxy setting (the environment's value passed in).
@Suite("headless follow mode: which URLs go through libcurl", .onOwnThreads)
struct FollowTransportChoiceTests {
    @Test(
        "https always; http only to a host that is not loopback while a proxy is set",
        arguments: [
            ("https://login.example.com/authorize", nil, true),
            ("https://127.0.0.1:8443/authorize", nil, true),
            ("http://127.0.0.1:8000/authorize", nil, false),
            ("http://login.example.com/authorize", nil, false),
            ("http://login.example.com/authorize", "", false),
            ("http://login.example.com/authorize", "http://proxy.internal:3128", true),
            ("http://127.0.0.1:8000/authorize", "http://proxy.internal:3128", false),
            ("http://localhost:8000/authorize", "http://proxy.internal:3128", false),
            ("http://[::1]:8000/authorize", "http://proxy.internal:3128", false),
        ] as [(String, String?, Bool)])
    func choice(url: String, proxy: String?, curl: Bool) throws {
        #expect(FollowTransport.needsLibcurl(try #require(URL(string: url)), proxy: proxy) == curl)
    }
}
