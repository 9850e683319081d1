// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif
import CurlClient
@testable import EUAHeadless
import ExternalUserAgentPluginKit
import FoundationEssentials
import ExternalUserAgentSystem
import ExternalUserAgentNet
import EUATestSupport
import Testing

/// The libcurl client over real sockets: what it sends, its limits, and that every wait ends — by its
/// deadline or at once by the stop descriptor.
@Suite("CurlClient: requests through libcurl", .onOwnThreads, .timeLimit(.minutes(1)))
struct CurlClientTests {
    static func client(maximumBodyBytes: Int = 2 << 20) throws -> CurlClient {
        try CurlClient(.init(keepsCookies: true, maximumBodyBytes: maximumBodyBytes, userAgent: "eua-test/1"))
    }

    @Test(
        "a POST goes with its headers and body; the answer's status, fields and body come back; no redirect is followed"
    )
    func post() throws {
        let server = try CannedServer(
            reply: Array("HTTP/1.1 302 Found\r\nLocation: /next\r\nSet-Cookie: s=1\r\nContent-Length: 2\r\n\r\nok".utf8)
        )
        let response = try Self.client().send(
            CurlRequest(
                method: "POST", url: "http://127.0.0.1:\(server.port)/login?x=1",
                headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array("a=1&b=2".utf8)),
            timeout: .seconds(10))
        #expect(response.status == 302 && response.header("location") == "/next" && response.body == Array("ok".utf8))
        let request = String(decoding: server.request(), as: UTF8.self)
        #expect(request.hasPrefix("POST /login?x=1 HTTP/1.1\r\n"), "\(request)")
        #expect(request.contains("\r\nUser-Agent: eua-test/1\r\n") && request.contains("\r\nContent-Length: 7\r\n"))
        #expect(!request.contains("Expect:"), "no 100-continue wait")
        #expect(request.hasSuffix("\r\n\r\na=1&b=2"))
    }

    @Test("a body over the limit is refused, naming the limit")
    func bodyLimit() throws {
        let server = try CannedServer(
            reply: Array(("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + String(repeating: "x", count: 5000)).utf8))
        #expect {
            try Self.client(maximumBodyBytes: 1000).send(
                CurlRequest(url: "http://127.0.0.1:\(server.port)/big"), timeout: .seconds(10))
        } throws: { error in
            (error as? CurlError)?.kind == .tooLarge
                && "\(error)" == "GET http://127.0.0.1:\(server.port)/big: the answer is larger than 1000 bytes"
        }
    }

    @Test("a server that never answers ends in the deadline; the stop descriptor ends the wait at once")
    func deadlineAndStop() throws {
        let silent = try CannedServer(reply: nil)
        let clock = ContinuousClock()
        var started = clock.now
        #expect {
            try Self.client().send(
                CurlRequest(url: "http://127.0.0.1:\(silent.port)/slow?code=secret"), timeout: .milliseconds(500))
        } throws: { error in
            (error as? CurlError)?.kind == .timedOut
                && "\(error)".hasPrefix("GET http://127.0.0.1:\(silent.port)/slow took longer than 500 ms")
                && !"\(error)".contains("secret")
        }
        #expect(clock.now - started < .seconds(3))

        let other = try CannedServer(reply: nil)
        let stop = try StopSignal()
        _ = try BlockingCall.start(name: "test-stopper") {
            usleep(200_000)
            stop.raise()
        }
        started = clock.now
        #expect {
            try Self.client().send(
                CurlRequest(url: "http://127.0.0.1:\(other.port)/"), timeout: .seconds(30),
                stopDescriptor: stop.descriptor)
        } throws: { error in
            (error as? CurlError)?.kind == .stopped
        }
        #expect(clock.now - started < .seconds(2))
    }

    @Test("a header with a line break, a method that is not a token, and a URL that is not http(s) are refused unsent")
    func invalidRequests() throws {
        let client = try Self.client()
        for request in [
            CurlRequest(url: "http://127.0.0.1:9/", headers: [("X", "a\r\nInjected: 1")]),
            CurlRequest(method: "get x", url: "http://127.0.0.1:9/"),
            CurlRequest(url: "file:///etc/passwd"), CurlRequest(url: "ftp://127.0.0.1/"),
        ] {
            #expect {
                try client.send(request, timeout: .seconds(5))
            } throws: { error in
                (error as? CurlError)?.kind == .invalidRequest
            }
        }
    }

    @Test("follow mode: cancel ends a request the provider never answers, at once")
    func followStop() throws {
        let silent = try CannedServer(reply: nil)
        let stop = try StopSignal()
        var browser = try BrowserFollow(
            script: HeadlessScript(options: ["mode": "follow"]),
            redirectURI: URL(string: "http://127.0.0.1:9/cb")!, stop: stop)
        _ = try BlockingCall.start(name: "test-stopper") {
            usleep(200_000)
            stop.raise()
        }
        let clock = ContinuousClock()
        let started = clock.now
        #expect {
            try browser.callbackURL(from: URL(string: "http://127.0.0.1:\(silent.port)/authorize")!)
        } throws: { error in
            (error as? NetworkError)?.kind == .stopped
        }
        #expect(clock.now - started < .seconds(2))
    }
}
