// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
@testable import ExternalUserAgentOAuth
import Foundation
import Testing

/// The OAuth client's plain-http path (ExternalUserAgentNet's sockets, no NIO event loop): what it refuses to send, and
/// that cancelling the task ends its wait at once. Asserted on what the scripted server received.
@Suite("the OAuth client's plain-http requests over blocking sockets")
struct PlainHTTPExchangeTests {
    @Test("a header value with a line break (a hostile access token) is refused and nothing is sent")
    func headerInjection() async throws {
        try await ScriptedHTTPServer.withServer(
            answer: .bytes("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}", close: true)
        ) { server in
            let url = try #require(URL(string: server.url("/userinfo")))
            let error = await #expect(throws: HTTPRequestError.self) {
                try await OAuthHTTP().get(url, authorization: "Bearer abc\r\nX-Injected: 1", accept: "application/json")
            }
            #expect(
                error?.kind == .failed && error?.description.contains("holds a line break ('Authorization')") == true,
                "\(error?.description ?? "")")
            #expect(error?.description.contains("abc") == false, "the token is not shown")
            try await Task.sleep(for: .milliseconds(200))
            #expect(server.requests.isEmpty, "nothing reached the server")
        }
    }

    @Test("cancelling the task ends a wait on a server that never answers at once")
    func cancellation() async throws {
        try await ScriptedHTTPServer.withServer(answer: .never) { server in
            let url = try #require(URL(string: server.url("/slow")))
            let started = ContinuousClock.now
            let request = Task { try await OAuthHTTP(timeout: .seconds(30)).get(url) }
            try await Task.sleep(for: .milliseconds(300))
            request.cancel()
            let outcome = await request.result
            #expect(throws: CancellationError.self) { try outcome.get() }
            #expect(ContinuousClock.now - started < .seconds(5), "ended by the cancel, not the 30 s deadline")
            #expect(server.requests.count == 1, "the request had been sent before the cancel")
        }
    }

    @Test(
        "plain sockets only where no name server is asked: http to an IP literal or localhost; a DNS name and https go through libcurl"
    )
    func transportChoice() throws {
        for (url, plain) in [
            ("http://127.0.0.1:8080/token", true), ("http://[::1]:8080/token", true),
            ("http://localhost:8080/token", true), ("http://LOCALHOST/token", true),
            ("http://idp.example.com/token", false), ("https://127.0.0.1/token", false),
            ("https://idp.example.com/token", false),
        ] {
            #expect(HTTPRequestClient.usesPlainSockets(try HTTPTarget(URL(string: url)!)) == plain, "\(url)")
        }
    }
}
