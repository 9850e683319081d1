// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
@testable import ExternalUserAgentOAuth
import Foundation
import Testing

@Suite("the OAuth client's HTTP client against local servers")
struct HTTPClientTests {
    private static let json = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"

    private func expectFailure(
        _ kind: HTTPRequestError.Kind, mentioning words: [String],
        _ request: () async throws -> OAuthHTTP.Response
    ) async {
        let error = await #expect(throws: HTTPRequestError.self) { try await request() }
        #expect(error?.kind == kind, "\(error?.description ?? "")")
        for word in words {
            #expect(error?.description.contains(word) == true, "'\(word)' not in: \(error?.description ?? "")")
        }
    }

    @Test("a Content-Length body, the connection left open: the request as sent, the response read whole")
    func contentLength() async throws {
        try await ScriptedHTTPServer.withServer(
            answer: .bytes(
                Self.json + "Content-Length: 8\r\n\r\n{\"a\": 1}",
                close: false)
        ) { server in
            let started = ContinuousClock.now
            let response = try await OAuthHTTP(timeout: .seconds(10)).get(
                try #require(URL(string: server.url("/a%2Fb/c?x=%20y&z=%7E"))))
            #expect(ContinuousClock.now - started < .seconds(5), "done at the end of the body, not at the deadline")
            #expect(response.status == 200 && response.contentType == "application/json")
            #expect(String(decoding: response.body, as: UTF8.self) == "{\"a\": 1}")
            let request = try #require(server.requests.first)
            #expect(
                request.hasPrefix("GET /a%2Fb/c?x=%20y&z=%7E HTTP/1.1\r\n"), "the target exactly as percent-encoded")
            let lines = request.lowercased().split(separator: "\r\n").map(String.init)
            for header in [
                "host: 127.0.0.1:\(server.port)", "accept: application/json", "user-agent: eua", "connection: close",
            ] {
                #expect(lines.contains(header), "\(header) in \(lines)")
            }
            #expect(!lines.contains { $0.hasPrefix("content-length") || $0.hasPrefix("transfer-encoding") })
        }
    }

    @Test("a chunked body")
    func chunked() async throws {
        try await ScriptedHTTPServer.withServer(
            answer: .bytes(
                Self.json + "Transfer-Encoding: chunked\r\n\r\n5\r\n{\"a\":\r\n3\r\n 1}\r\n0\r\n\r\n", close: false)
        ) { server in
            let response = try await OAuthHTTP().get(try #require(URL(string: server.url())))
            #expect(String(decoding: response.body, as: UTF8.self) == "{\"a\": 1}")
        }
    }

    @Test("a body ended by closing the connection")
    func endedByClose() async throws {
        try await ScriptedHTTPServer.withServer(answer: .bytes(Self.json + "\r\n{\"b\": 2}", close: true)) { server in
            let response = try await OAuthHTTP().get(try #require(URL(string: server.url())))
            #expect(String(decoding: response.body, as: UTF8.self) == "{\"b\": 2}")
        }
    }

    @Test("a form POST: Content-Length, the encoded fields, Authorization")
    func postForm() async throws {
        try await ScriptedHTTPServer.withServer(answer: .bytes(Self.json + "Content-Length: 2\r\n\r\n{}", close: true))
        { server in
            let response = try await OAuthHTTP().postForm(
                try #require(URL(string: server.url("/token"))),
                fields: [("grant_type", "refresh_token"), ("x", "a b&c")],
                authorization: "Basic abc")
            #expect(response.status == 200)
            let request = try #require(server.requests.first)
            let body = "grant_type=refresh_token&x=a+b%26c"
            #expect(request.hasPrefix("POST /token HTTP/1.1\r\n") && request.hasSuffix("\r\n\r\n" + body))
            let lines = request.lowercased().split(separator: "\r\n").map(String.init)
            for header in [
                "content-length: \(body.utf8.count)", "content-type: application/x-www-form-urlencoded",
                "authorization: basic abc", "accept: application/json",
            ] {
                #expect(lines.contains(header), "\(header) in \(lines)")
            }
            #expect(!lines.contains { $0.hasPrefix("transfer-encoding") })
        }
    }

    @Test(
        "a body over the limit is an error, however it is framed",
        arguments: [
            "Content-Length: 20\r\n\r\n{\"a\": \"0123456789\"}",
            "Transfer-Encoding: chunked\r\n\r\n14\r\n{\"a\": \"0123456789\"}\r\n0\r\n\r\n",
            "\r\n{\"a\": \"0123456789\"}",
        ])
    func bodyOverLimit(framing: String) async throws {
        try await ScriptedHTTPServer.withServer(answer: .bytes(Self.json + framing, close: true)) { server in
            await expectFailure(.bodyTooLarge, mentioning: ["http://127.0.0.1:\(server.port)", "10 bytes"]) {
                try await OAuthHTTP(maximumBodyBytes: 10).get(try #require(URL(string: server.url())))
            }
        }
    }

    @Test("a body cut short by the server closing is an error")
    func cutShort() async throws {
        try await ScriptedHTTPServer.withServer(
            answer: .bytes(Self.json + "Content-Length: 100\r\n\r\n{\"a\"", close: true)
        ) { server in
            await expectFailure(.connectionClosed, mentioning: ["http://127.0.0.1:\(server.port)"]) {
                try await OAuthHTTP().get(try #require(URL(string: server.url())))
            }
        }
    }

    @Test("a server that accepts and never answers: an error at the deadline, naming the server but not the query")
    func neverAnswers() async throws {
        try await ScriptedHTTPServer.withServer(answer: .never) { server in
            let started = ContinuousClock.now
            await expectFailure(.timedOut, mentioning: ["http://127.0.0.1:\(server.port)", "500 ms"]) {
                try await OAuthHTTP(timeout: .milliseconds(500)).get(
                    try #require(URL(string: server.url("/x?code=SECRET"))))
            }
            let elapsed = ContinuousClock.now - started
            #expect(elapsed >= .milliseconds(450) && elapsed < .seconds(3), "gave up at its deadline: \(elapsed)")
            #expect(server.requests.count == 1)
        }
    }

    @Test("a refused connection fails at once, naming the server")
    func refused() async throws {
        let port = try OIDCProviderMock.freePort()
        let started = ContinuousClock.now
        await expectFailure(.connectFailed, mentioning: ["http://127.0.0.1:\(port)", "refused"]) {
            try await OAuthHTTP(timeout: .seconds(60)).get(try #require(URL(string: "http://127.0.0.1:\(port)/")))
        }
        // Far below the deadline, not a speed test: the suite runs in parallel on two cores, which may delay any step.
        #expect(ContinuousClock.now - started < .seconds(20), "no retrying until the deadline")
    }

    @Test("an IPv6 literal host")
    func ipv6() async throws {
        try await ScriptedHTTPServer.withServer(
            host: "::1",
            answer: .bytes(
                Self.json + "Content-Length: 2\r\n\r\n{}",
                close: true)
        ) { server in
            let response = try await OAuthHTTP().get(try #require(URL(string: "http://[::1]:\(server.port)/v6")))
            #expect(response.status == 200)
            let lines = try #require(server.requests.first).lowercased().split(separator: "\r\n").map(String.init)
            #expect(lines.contains("host: [::1]:\(server.port)"))
        }
    }

    @Test(
        "https to a local TLS server: its certificate is checked for a DNS name and for an IP address",
        arguments: ["localhost", "127.0.0.1"])
    func https(host: String) async throws {
        let certificate = try TestCertificate()
        try await ScriptedHTTPServer.withServer(
            tls: certificate,
            answer: .bytes(Self.json + "Content-Length: 2\r\n\r\n{}", close: true)
        ) { server in
            var http = OAuthHTTP()
            http.caFile = certificate.caFile
            let response = try await http.get(
                try #require(URL(string: server.url("/jwks", scheme: "https", host: host))))
            #expect(response.status == 200 && String(decoding: response.body, as: UTF8.self) == "{}")
            #expect(server.requests.first?.lowercased().contains("host: \(host):\(server.port)\r\n") == true)
        }
    }

    @Test("https: a certificate for other names, or not trusted by the system, fails the handshake")
    func httpsRefused() async throws {
        let certificate = try TestCertificate()
        try await ScriptedHTTPServer.withServer(
            host: "::1", tls: certificate,
            answer: .bytes(Self.json + "Content-Length: 2\r\n\r\n{}", close: true)
        ) { v6 in
            var trusting = OAuthHTTP()
            trusting.caFile = certificate.caFile
            await expectFailure(.tlsFailed, mentioning: ["https://[::1]:\(v6.port)", "not for this host"]) {
                try await trusting.get(try #require(URL(string: v6.url(scheme: "https"))))
            }
            try await ScriptedHTTPServer.withServer(
                tls: certificate,
                answer: .bytes(Self.json + "Content-Length: 2\r\n\r\n{}", close: true)
            ) { v4 in
                await expectFailure(
                    .tlsFailed, mentioning: ["https://127.0.0.1:\(v4.port)", "certificate verify failed"]
                ) {
                    try await OAuthHTTP().get(try #require(URL(string: v4.url(scheme: "https"))))
                }
                #expect(v6.requests.isEmpty && v4.requests.isEmpty, "nothing was sent before the handshake")
            }
        }
    }

    @Test("https through libcurl: cancelling the task ends a wait on a server that never answers, at once")
    func httpsCancellation() async throws {
        let certificate = try TestCertificate()
        try await ScriptedHTTPServer.withServer(tls: certificate, answer: .never) { server in
            var http = OAuthHTTP(timeout: .seconds(30))
            http.caFile = certificate.caFile
            let url = try #require(URL(string: server.url("/slow", scheme: "https")))
            let started = ContinuousClock.now
            let request = Task { try await http.get(url) }
            try await Task.sleep(for: .milliseconds(500))
            request.cancel()
            let outcome = await request.result
            #expect(throws: CancellationError.self) { try outcome.get() }
            #expect(ContinuousClock.now - started < .seconds(5), "ended by the cancel, not the 30 s deadline")
            #expect(server.requests.count == 1, "the request had been sent over TLS before the cancel")
        }
    }

    @Test("https through libcurl: a header value with a line break is refused and nothing is sent")
    func httpsHeaderInjection() async throws {
        let certificate = try TestCertificate()
        try await ScriptedHTTPServer.withServer(
            tls: certificate,
            answer: .bytes(Self.json + "Content-Length: 2\r\n\r\n{}", close: true)
        ) { server in
            var http = OAuthHTTP()
            http.caFile = certificate.caFile
            await expectFailure(.failed, mentioning: ["holds a line break ('Authorization')", "nothing was sent"]) {
                try await http.get(
                    try #require(URL(string: server.url("/userinfo", scheme: "https"))),
                    authorization: "Bearer abc\r\nX-Injected: 1", accept: "application/json")
            }
            try await Task.sleep(for: .milliseconds(200))
            #expect(server.requests.isEmpty, "nothing reached the server")
        }
    }

    @Test("an https URL to a plain-http port fails with a TLS error naming the server")
    func httpsToPlainHTTP() async throws {
        try await ScriptedHTTPServer.withServer(
            answer: .atOnce("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        ) { server in
            await expectFailure(.tlsFailed, mentioning: ["https://127.0.0.1:\(server.port)", "wrong version number"]) {
                try await OAuthHTTP().get(try #require(URL(string: server.url(scheme: "https"))))
            }
        }
    }

    @Test("a GET follows a redirect; never from https to http")
    func redirects() async throws {
        try await ScriptedHTTPServer.withServer(answer: .bytes(Self.json + "Content-Length: 2\r\n\r\n{}", close: true))
        { target in
            try await ScriptedHTTPServer.withServer(
                answer: .bytes(
                    "HTTP/1.1 302 Found\r\nLocation: \(target.url("/moved"))\r\nContent-Length: 0\r\n\r\n", close: true)
            ) { redirecting in
                let response = try await OAuthHTTP().get(try #require(URL(string: redirecting.url("/start"))))
                #expect(response.status == 200)
                #expect(target.requests.first?.hasPrefix("GET /moved HTTP/1.1\r\n") == true)

                let certificate = try TestCertificate()
                try await ScriptedHTTPServer.withServer(
                    tls: certificate,
                    answer: .bytes(
                        "HTTP/1.1 301 Moved\r\nLocation: \(target.url("/plain"))\r\nContent-Length: 0\r\n\r\n",
                        close: true)
                ) { downgrading in
                    var http = OAuthHTTP()
                    http.caFile = certificate.caFile
                    await expectFailure(.failed, mentioning: ["https://127.0.0.1:\(downgrading.port)", "not https"]) {
                        try await http.get(try #require(URL(string: downgrading.url(scheme: "https"))))
                    }
                    #expect(target.requests.count == 1)
                }
            }
        }
    }

    @Test("what a URL becomes: Host header, request target, the server in messages")
    func targets() throws {
        let cases: [(url: String, host: String, target: String, server: String, literal: Bool)] = [
            (
                "https://id.example.com/a%2Fb?q=%20", "id.example.com", "/a%2Fb?q=%20", "https://id.example.com:443",
                false
            ),
            ("http://id.example.com:80", "id.example.com", "/", "http://id.example.com:80", false),
            ("https://id.example.com:8443/x?", "id.example.com:8443", "/x?", "https://id.example.com:8443", false),
            ("http://127.0.0.1:9000/cb#frag", "127.0.0.1:9000", "/cb", "http://127.0.0.1:9000", true),
            ("https://[::1]/", "[::1]", "/", "https://[::1]:443", true),
        ]
        for test in cases {
            let target = try HTTPTarget(try #require(URL(string: test.url)))
            #expect(target.hostHeader == test.host && target.requestTarget == test.target, "\(test.url)")
            #expect(target.server == test.server && target.isIPLiteral == test.literal, "\(test.url)")
        }
        #expect(throws: HTTPRequestError.self) { try HTTPTarget(try #require(URL(string: "ftp://example.com/x"))) }
        #expect(throws: HTTPRequestError.self) { try HTTPTarget(try #require(URL(string: "file:///etc/passwd"))) }
    }
}
