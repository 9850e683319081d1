// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import ExternalUserAgentTesting
import Foundation
import Testing

/// One flow through the real loopback plugin (dlopen), with an agent that never answers, so the test
/// plays the browser — and the attacker — over real sockets.
final class LoopbackHarness: Sendable {
    static let state = "st-Zq81xk2m"
    let session: ExternalUserAgentSession
    let running: Task<Result<URL, ExternalUserAgentError>, Never>
    let redirectURI: URL

    var port: Int { redirectURI.port! }
    var path: String { redirectURI.path }

    init(
        options: [String: String] = [:], expectedState: String? = LoopbackHarness.state,
        timeout: Duration = .seconds(60)
    ) async throws {
        let entry = try #require(try await BuiltPlugins.catalog().receiver(id: "loopback"))
        let session = ExternalUserAgentSession(
            agent: FakeExternalUserAgent(script: .neverAnswers), receiver: entry.makeReceiver(options: options),
            configuration: .init(expectedState: expectedState, timeout: timeout))
        self.session = session
        running = Task {
            do {
                return .success(try await session.run { $0 })
            } catch {
                return .failure(error as? ExternalUserAgentError ?? ExternalUserAgentError(.receiverFailed, "\(error)"))
            }
        }
        let deadline = Date().addingTimeInterval(10)
        while session.redirectURI == nil {
            if session.isCompleted, case .failure(let error) = await running.value {
                throw error
            }
            if Date() > deadline { throw TestSupportError("the loopback receiver did not start within 10 s") }
            try await Task.sleep(for: .milliseconds(5))
        }
        redirectURI = session.redirectURI!
    }

    /// A raw request line + headers for the redirect path with `query`.
    func request(
        _ query: String, method: String = "GET", target: String? = nil, host: String? = nil,
        extraHeaders: String = ""
    ) -> String {
        let target = target ?? (query.isEmpty ? path : "\(path)?\(query)")
        return "\(method) \(target) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\n\(extraHeaders)\r\n"
    }

    /// Sends `raw` on a fresh connection and returns the status of the reply (0 when none).
    func send(_ raw: String, host: String = "127.0.0.1") throws -> Int {
        let connection = try RawConnection(host: host, port: port)
        connection.send(raw)
        return connection.status()
    }

    /// The receiver is alive and has not completed anything.
    func expectStillWaiting(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!session.isCompleted, "no false completion", sourceLocation: sourceLocation)
    }

    /// The real redirect completes the flow exactly once with the right values, and the port closes.
    func finishWithRealRedirect(
        code: String = "real-code", host: String = "127.0.0.1",
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        expectStillWaiting(sourceLocation: sourceLocation)
        let status = try send(request("code=\(code)&state=\(Self.state)&iss=https%3A%2F%2Fas.example"), host: host)
        #expect(status == 200, "the real redirect gets the success page", sourceLocation: sourceLocation)
        let url = try await running.value.get()
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)!.queryItems!
        #expect(items.first { $0.name == "code" }?.value == code, sourceLocation: sourceLocation)
        #expect(items.first { $0.name == "state" }?.value == Self.state, sourceLocation: sourceLocation)
        #expect(items.first { $0.name == "iss" }?.value == "https://as.example", sourceLocation: sourceLocation)
        #expect(url.host == redirectURI.host && url.port == port && url.path == path, sourceLocation: sourceLocation)
        #expect(
            throws: ExternalUserAgentError.self, "a second completion is impossible", sourceLocation: sourceLocation
        ) {
            try session.resume(with: url)
        }
        try await expectPortClosed(sourceLocation: sourceLocation)
    }

    func expectPortClosed(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(RawConnection.isRefused(port: port), "127.0.0.1:\(port) is closed", sourceLocation: sourceLocation)
        if LoopbackHarness.ipv6Available {
            #expect(
                RawConnection.isRefused(host: "::1", port: port), "[::1]:\(port) is closed",
                sourceLocation: sourceLocation)
        }
    }

    static var ipv6Available: Bool {
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0
            }
        }
    }
}
