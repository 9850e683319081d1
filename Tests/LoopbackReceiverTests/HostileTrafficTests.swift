// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import Foundation
import Testing

/// Hostile traffic against the real loopback plugin over real sockets. Every case ends the same way:
/// the receiver is still alive, nothing completed falsely, and then the real redirect completes exactly
/// once with the right values and the port closes.
@Suite("Loopback receiver: hostile traffic", .onOwnThreads, .timeLimit(.minutes(2)))
struct HostileTrafficTests {
    @Test(
        "malformed request lines get 400 (or are dropped)",
        arguments: [
            "GARBAGE\r\n\r\n",
            "GET\r\n\r\n",
            "GET /x HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n",
            "GET  HTTP/1.1\r\n\r\n",
            "\r\n\r\n\r\n",
            "GET /cb?code=a\rb HTTP/1.1\r\n\r\n",
        ])
    func malformed(_ raw: String) async throws {
        let harness = try await LoopbackHarness()
        let status = try harness.send(raw)
        #expect(status == 0 || (400..<500).contains(status))
        try await harness.finishWithRealRedirect()
    }

    @Test("binary junk")
    func binaryJunk() async throws {
        let harness = try await LoopbackHarness()
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5 {
            let connection = try RawConnection(port: harness.port)
            connection.send((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let status = connection.status(timeout: 3)
            #expect(status == 0 || (400..<500).contains(status))
        }
        try await harness.finishWithRealRedirect()
    }

    @Test("oversize headers get 431")
    func oversizeHeaders() async throws {
        let harness = try await LoopbackHarness()
        let big = "X-Filler: " + String(repeating: "a", count: 20_000) + "\r\n"
        #expect(try harness.send(harness.request("code=x&state=\(LoopbackHarness.state)", extraHeaders: big)) == 431)
        let many = (0..<2000).map { "X-H\($0): v\r\n" }.joined()
        #expect(try harness.send(harness.request("code=x&state=\(LoopbackHarness.state)", extraHeaders: many)) == 431)
        try await harness.finishWithRealRedirect()
    }

    @Test("oversize URLs are refused")
    func oversizeURL() async throws {
        let harness = try await LoopbackHarness()
        let long = "code=" + String(repeating: "c", count: 9000) + "&state=\(LoopbackHarness.state)"
        #expect(try harness.send(harness.request(long)) == 414)
        let huge = "code=" + String(repeating: "c", count: 40_000) + "&state=\(LoopbackHarness.state)"
        #expect(try harness.send(harness.request(huge)) == 431)
        try await harness.finishWithRealRedirect()
    }

    @Test("slow and idle clients held open do not block the real redirect; they are dropped after the request timeout")
    func slowAndIdleClients() async throws {
        let harness = try await LoopbackHarness(options: ["request-timeout-ms": "1500"])
        let idle = try (0..<20).map { _ in try RawConnection(port: harness.port) }
        let slow = try (0..<20).map { _ in try RawConnection(port: harness.port) }
        for connection in slow { connection.send("GET \(harness.path)?co") }
        let dribble = Task {
            for _ in 0..<10 {
                for connection in slow { connection.send("d") }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        harness.expectStillWaiting()
        // The slowloris connections are cut off by the request timeout, even while they dribble.
        try await dribble.value
        let dropped = slow[0].readAll(timeout: 3)
        #expect(!dropped.contains("200 OK"))
        try await harness.finishWithRealRedirect()
        _ = idle
    }

    @Test("a flood of 200 connections past the connection limit cannot crowd out the real redirect")
    func flood() async throws {
        let harness = try await LoopbackHarness(options: ["max-connections": "64"])
        var flood: [RawConnection] = []
        for _ in 0..<200 { flood.append(try RawConnection(port: harness.port)) }
        for connection in flood.prefix(50) { connection.send("GET /junk HTTP/1.1\r\nHost: x") }
        try await Task.sleep(for: .milliseconds(200))
        try await harness.finishWithRealRedirect()
    }

    @Test("wrong path, method, Host and state are refused, each with its status")
    func wrongRequests() async throws {
        let harness = try await LoopbackHarness()
        let good = "code=x&state=\(LoopbackHarness.state)"
        #expect(try harness.send(harness.request(good, target: "/elsewhere?\(good)")) == 404)
        #expect(try harness.send(harness.request(good, target: "\(harness.path)/?\(good)")) == 404)
        #expect(try harness.send(harness.request(good, method: "POST")) == 405)
        #expect(try harness.send(harness.request(good, method: "HEAD")) == 405)
        #expect(try harness.send(harness.request(good, host: "evil.example:\(harness.port)")) == 421)
        #expect(try harness.send(harness.request(good, host: "127.0.0.1:1")) == 421)
        #expect(try harness.send("GET \(harness.path)?\(good) HTTP/1.1\r\n\r\n") == 421, "no Host at all")
        #expect(
            try harness.send(harness.request(good, extraHeaders: "Host: 127.0.0.1:\(harness.port)\r\n")) == 421,
            "two Host headers")
        #expect(try harness.send(harness.request("code=x&state=wrong")) == 400)
        #expect(try harness.send(harness.request("code=x")) == 400)
        #expect(try harness.send(harness.request("state=\(LoopbackHarness.state)")) == 400, "neither code nor error")
        harness.expectStillWaiting()
        // localhost with the right port is allowed (browsers send it when the URI says localhost).
        #expect(try harness.send(harness.request(good, host: "LocalHost:\(harness.port)")) == 200)
        _ = try await harness.running.value.get()
        try await harness.expectPortClosed()
    }

    @Test(
        "wrong Host values are refused (DNS rebinding)",
        arguments: ["attacker.example", "127.0.0.1", "127.0.0.1:80", "[::2]:PORT", "LOCALHOST.:PORT"])
    func dnsRebinding(_ host: String) async throws {
        let harness = try await LoopbackHarness()
        let value = host.replacingOccurrences(of: "PORT", with: String(harness.port))
        #expect(try harness.send(harness.request("code=x&state=\(LoopbackHarness.state)", host: value)) == 421)
        try await harness.finishWithRealRedirect()
    }

    @Test("repeated code, state, iss or error parameters are refused", arguments: ["code", "state", "iss", "error"])
    func repeatedParameters(_ name: String) async throws {
        let harness = try await LoopbackHarness()
        let base = "code=x&state=\(LoopbackHarness.state)&iss=a"
        let value = name == "state" ? LoopbackHarness.state : "y"
        #expect(
            try harness.send(harness.request("\(base)&\(name)=\(value)" + (name == "error" ? "&error=z" : ""))) == 400)
        try await harness.finishWithRealRedirect()
    }

    @Test("pipelined requests: only the first on a connection is answered")
    func pipelined() async throws {
        let harness = try await LoopbackHarness()
        let connection = try RawConnection(port: harness.port)
        connection.send(
            harness.request("code=x&state=wrong") + harness.request("code=x&state=\(LoopbackHarness.state)"))
        let reply = connection.readAll()
        #expect(RawConnection.status(of: reply) == 400)
        #expect(reply.components(separatedBy: "HTTP/1.1 ").count == 2, "exactly one response")
        try await harness.finishWithRealRedirect()
    }

    @Test(
        "a bare LF, a folded header, a space before the colon or a control byte gets 400, and is counted",
        arguments: [
            "GET PATH?QUERY HTTP/1.1\nHost: HOST\r\n\r\n",
            "GET PATH?QUERY HTTP/1.1\r\nHost: HOST\r\nX-A: 1\r\n folded\r\n\r\n",
            "GET PATH?QUERY HTTP/1.1\r\nHost : HOST\r\n\r\n",
            "GET PATH?QUERY HTTP/1.1\r\nHost: HOST\u{0}\r\n\r\n",
            "GET PATH?QUERY HTTP/1.1\r\nHost: HOST\r\nX: \u{1B}[2J\r\n\r\n",
        ])
    func strictGrammar(_ template: String) async throws {
        let harness = try await LoopbackHarness()
        let raw = template.replacingOccurrences(of: "PATH", with: harness.path)
            .replacingOccurrences(of: "QUERY", with: "code=x&state=\(LoopbackHarness.state)")
            .replacingOccurrences(of: "HOST", with: "127.0.0.1:\(harness.port)")
        let connection = try RawConnection(port: harness.port)
        connection.send(raw)
        let reply = connection.readAll()
        #expect(RawConnection.status(of: reply) == 400)
        #expect(reply.contains("The request is not valid HTTP: "), "the page names the rule that was broken")
        #expect(harness.session.refusedCount == 1, "the refusal reached the session")
        try await harness.finishWithRealRedirect()
    }

    @Test("the browser gets the whole reply even when it sent more than the head (no reset on close)")
    func wholeReplyAfterExtraBytes() async throws {
        let harness = try await LoopbackHarness()
        let connection = try RawConnection(port: harness.port)
        let junk = [UInt8](repeating: UInt8(ascii: "j"), count: 256 * 1024)
        #expect(
            connection.send(Array(harness.request("code=x&state=wrong").utf8) + junk),
            "the receiver drains what follows the head")
        let reply = connection.readAll()
        #expect(RawConnection.status(of: reply) == 400)
        #expect(reply.hasSuffix("</html>\n"), "the page arrived whole")
        // Once the redirect is answered the flow ends without waiting for the client to stop sending: the
        // reply is already in its receive queue, and a reset does not take it away.
        let real = try RawConnection(port: harness.port)
        real.send(
            Array(harness.request("code=real-code&state=\(LoopbackHarness.state)&iss=https%3A%2F%2Fas.example").utf8)
                + junk)
        let success = real.readAll()
        #expect(RawConnection.status(of: success) == 200)
        #expect(success.hasSuffix("</html>\n"), "the success page arrived whole")
        _ = try await harness.running.value.get()
        try await harness.expectPortClosed()
    }

    @Test("one thread of its own serves every connection (no thread per connection)")
    func oneThread() async throws {
        let harness = try await LoopbackHarness()
        let held = try (0..<50).map { _ in try RawConnection(port: harness.port) }
        for connection in held { connection.send("GET \(harness.path)?co") }
        try await Task.sleep(for: .milliseconds(200))
        let threads = threadNames().filter { $0 == "eua-loopback" }.count
        // Other tests run beside this one, a receiver thread each; a thread per connection would be 50 or more.
        #expect((1..<10).contains(threads), "\(threads) receiver threads for one flow (other tests may run one each)")
        try await harness.finishWithRealRedirect()
        _ = held
    }

    @Test("absolute-form targets are refused")
    func absoluteForm() async throws {
        let harness = try await LoopbackHarness()
        let target = "http://127.0.0.1:\(harness.port)\(harness.path)?code=x&state=\(LoopbackHarness.state)"
        #expect(try harness.send(harness.request("", target: target)) == 400)
        try await harness.finishWithRealRedirect()
    }

    @Test("bad percent-escapes and raw CR/LF in the query are refused", arguments: ["%zz", "%4", "%", "%C3%28", "a%0"])
    func badEscapes(_ junk: String) async throws {
        let harness = try await LoopbackHarness()
        #expect(try harness.send(harness.request("code=\(junk)&state=\(LoopbackHarness.state)")) == 400)
        let crlf =
            "GET \(harness.path)?code=a\r\nb&state=\(LoopbackHarness.state) HTTP/1.1\r\nHost: 127.0.0.1:\(harness.port)\r\n\r\n"
        let status = try harness.send(crlf)
        #expect(status == 0 || status == 400)
        try await harness.finishWithRealRedirect()
    }

    @Test(
        "a '#' or a raw byte a browser would escape in the target is refused, so the page and the app agree",
        arguments: [
            "code=a#b&state=STATE", "code=a&state=STATE#x", "code=a%20b&state=STATE&x=\u{7F}",
            "code=\u{E9}&state=STATE",
        ])
    func fragmentInTarget(_ query: String) async throws {
        let harness = try await LoopbackHarness()
        let raw = harness.request(query.replacingOccurrences(of: "STATE", with: LoopbackHarness.state))
        #expect(
            try harness.send(raw) == 400,
            "refused: the browser must not be shown success for a redirect the app cannot read")
        #expect(harness.session.refusedCount == 1, "the refusal reached the session")
        try await harness.finishWithRealRedirect()
    }

    @Test("every refused request is counted by the session, and none ends the flow")
    func refusalsAreCounted() async throws {
        let harness = try await LoopbackHarness()
        #expect(try harness.send(harness.request("code=x&state=wrong")) == 400)
        #expect(try harness.send(harness.request("code=x&state=\(LoopbackHarness.state)", target: "/elsewhere")) == 404)
        #expect(try harness.send(harness.request("code=x", method: "POST")) == 405)
        try await Task.sleep(for: .milliseconds(100))
        #expect(harness.session.refusedCount == 3)
        try await harness.finishWithRealRedirect()
        #expect(harness.session.refusedCount == 3, "the real redirect is not a refusal")
    }

    @Test("an OAuth error with the right state completes the flow with that error, and the page escapes it")
    func oauthError() async throws {
        let harness = try await LoopbackHarness()
        let connection = try RawConnection(port: harness.port)
        connection.send(
            harness.request(
                "error=access_denied&error_description=%3Cscript%3Ealert(1)%3C%2Fscript%3E&state=\(LoopbackHarness.state)"
            ))
        let reply = connection.readAll()
        #expect(RawConnection.status(of: reply) == 200)
        #expect(reply.contains("access_denied"))
        #expect(!reply.contains("<script>"))
        #expect(reply.contains("&lt;script&gt;"))
        let url = try await harness.running.value.get()
        #expect(url.query?.contains("error=access_denied") == true)
        try await harness.expectPortClosed()
    }

    @Test("the success page is safe: CSP, no-store, no-referrer, no scripts")
    func successPage() async throws {
        let harness = try await LoopbackHarness()
        let connection = try RawConnection(port: harness.port)
        connection.send(harness.request("code=x&state=\(LoopbackHarness.state)"))
        let reply = connection.readAll()
        #expect(reply.contains("Content-Security-Policy: default-src 'none'"))
        #expect(reply.contains("Cache-Control: no-store"))
        #expect(reply.contains("Referrer-Policy: no-referrer"))
        #expect(reply.contains("You may close this tab"))
        #expect(!reply.lowercased().contains("<script"))
        _ = try await harness.running.value.get()
    }

    @Test("success-url redirects the browser to the app's page")
    func successURL() async throws {
        let harness = try await LoopbackHarness(options: ["success-url": "https://app.example/done"])
        let connection = try RawConnection(port: harness.port)
        connection.send(harness.request("code=x&state=\(LoopbackHarness.state)"))
        let reply = connection.readAll()
        #expect(RawConnection.status(of: reply) == 302)
        #expect(reply.contains("Location: https://app.example/done\r\n"))
        _ = try await harness.running.value.get()
    }

    @Test("IPv6: [::1] listens on the same port and completes the flow")
    func ipv6() async throws {
        let harness = try await LoopbackHarness()
        #expect(harness.redirectURI.host == "127.0.0.1", "the redirect URI uses the IPv4 literal (RFC 8252 §8.3)")
        if LoopbackHarness.ipv6Available {
            #expect(try harness.send(harness.request("code=x&state=nope"), host: "::1") == 400)
            #expect(
                try harness.send(
                    harness.request("code=x&state=\(LoopbackHarness.state)", host: "[::1]:\(harness.port)"), host: "::1"
                ) == 200)
            _ = try await harness.running.value.get()
            try await harness.expectPortClosed()
        } else {
            #expect(RawConnection.isRefused(host: "::1", port: harness.port))
            try await harness.finishWithRealRedirect()
        }
    }

    @Test("ipv6=true puts [::1] in the redirect URI")
    func ipv6URI() async throws {
        guard LoopbackHarness.ipv6Available else {
            let error = try #require(await failureToStart(["ipv6": "true"]))
            #expect(error.message.contains("[::1]"))
            return
        }
        let harness = try await LoopbackHarness(options: ["ipv6": "true"])
        #expect(harness.redirectURI.host == "::1" || harness.redirectURI.absoluteString.contains("[::1]"))
        try await harness.finishWithRealRedirect(host: "::1")
    }
}

/// Starting, stopping, ports: the receiver's life cycle.
@Suite("Loopback receiver: life cycle", .onOwnThreads, .timeLimit(.minutes(2)))
struct LoopbackLifecycleTests {
    @Test("after the first valid callback the sockets close, and no socket is left behind")
    func noLeaks() async throws {
        // Only the sockets of these flows are counted: other tests run beside this one, opening descriptors of their own.
        var ports = Set<Int>()
        for _ in 0..<5 {
            let harness = try await LoopbackHarness()
            ports.insert(harness.port)
            _ = try harness.send(harness.request("code=x&state=wrong"))
            try await harness.finishWithRealRedirect()
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(
            openSocketCount(localPorts: ports) == 0,
            "sockets of the finished flows still open: \(openSocketCount(localPorts: ports))")
    }

    @Test("a child process started during the flow does not inherit the listening socket (close-on-exec)")
    func childDoesNotInherit() async throws {
        let harness = try await LoopbackHarness()
        var pid: pid_t = 0
        var argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sleep"), strdup("5"), nil]
        defer { for pointer in argv { free(pointer) } }
        #expect(posix_spawn(&pid, "/bin/sleep", nil, nil, &argv, environ) == 0)
        defer {
            kill(pid, SIGKILL)
            waitpid(pid, nil, 0)
        }
        try await harness.finishWithRealRedirect()
    }

    @Test("a timeout closes the sockets")
    func timeoutCloses() async throws {
        let harness = try await LoopbackHarness(timeout: .milliseconds(300))
        let error = try #require(await harness.running.value.failure)
        #expect(error.code == .timedOut)
        try await harness.expectPortClosed()
    }

    @Test("cancel closes the sockets")
    func cancelCloses() async throws {
        let harness = try await LoopbackHarness()
        let idle = try RawConnection(port: harness.port)
        harness.session.cancel()
        let error = try #require(await harness.running.value.failure)
        #expect(error.code == .programCanceled)
        try await harness.expectPortClosed()
        #expect(idle.readAll(timeout: 3).isEmpty, "held connections are closed too")
    }

    @Test("a fixed port that is taken is a clear error")
    func portTaken() async throws {
        let first = try await LoopbackHarness()
        let error = try #require(await failureToStart(["port": String(first.port)]))
        #expect(error.code == .receiverFailed)
        #expect(error.message.contains("port \(first.port) is already in use"))
        #expect(error.message.contains("the receiver option port or port-range"))
        try await first.finishWithRealRedirect()
    }

    @Test("a port range gives the first free port in it")
    func portRange() async throws {
        let probe = try await LoopbackHarness()
        let base = probe.port
        probe.session.cancel()
        _ = await probe.running.value
        let harness = try await LoopbackHarness(options: ["port-range": "\(base)-\(base + 5)", "path": "/callback"])
        #expect((base...(base + 5)).contains(harness.port))
        #expect(harness.path == "/callback")
        try await harness.finishWithRealRedirect()
    }

    @Test("the default path has an unguessable random part")
    func randomPath() async throws {
        let a = try await LoopbackHarness()
        let b = try await LoopbackHarness()
        #expect(a.path != b.path)
        #expect(a.path.count >= 20)
        try await a.finishWithRealRedirect()
        try await b.finishWithRealRedirect()
    }

    @Test("without an expected state, the first redirect with a code completes")
    func noExpectedState() async throws {
        let harness = try await LoopbackHarness(expectedState: nil)
        #expect(try harness.send(harness.request("nothing=here")) == 400)
        #expect(try harness.send(harness.request("code=x")) == 200)
        _ = try await harness.running.value.get()
    }

    @Test(
        "bad options are refused with the reason",
        arguments: [
            ["port": "99999"], ["port-range": "9-1"], ["path": "no-slash"], ["ipv6": "maybe"], ["colour": "blue"],
            ["success-url": "javascript:alert(1)"], ["port": "8400", "port-range": "8400-8401"],
        ])
    func badOptions(_ options: [String: String]) async throws {
        let error = try #require(await failureToStart(options))
        #expect(error.code == .invalidOptions)
        #expect(error.message.contains("libEUALoopback.so"))
    }
}

func failureToStart(_ options: [String: String]) async -> ExternalUserAgentError? {
    do {
        let harness = try await LoopbackHarness(options: options)
        harness.session.cancel()
        return nil
    } catch {
        return error as? ExternalUserAgentError
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// The names of this process's threads (`/proc/self/task/*/comm`).
func threadNames() -> [String] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
        .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
}
