// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import ExternalUserAgentTesting
import Foundation
import Testing

/// The headless agent's requests through the real plugin (dlopen): every wait ends, and what comes back
/// is held to the client's limits.
@Suite("Headless plugin: network", .onOwnThreads, .timeLimit(.minutes(1)))
struct HeadlessNetworkTests {
    func headless() throws -> PluginAgentEntry {
        try #require(try BuiltPlugins.catalog().agent(id: "headless"))
    }

    @Test("cancel ends a delivery the receiver never answers, at once")
    func cancelDuringRequest() async throws {
        let listener = try TestListener(answer: nil)
        let receiver = FakeRedirectReceiver(redirectURI: URL(string: "http://127.0.0.1:\(listener.port)/cb")!)
        let session = ExternalUserAgentSession(
            agent: try headless().makeAgent(), receiver: receiver,
            configuration: .init(expectedState: "st", timeout: .seconds(30)))
        let running = Task { try await session.run { _ in URL(string: "https://as.example/authorize?state=st")! } }
        try await Task.sleep(for: .milliseconds(300))
        let clock = ContinuousClock()
        let cancelled = clock.now
        session.cancel()
        await #expect {
            try await running.value
        } throws: { error in
            (error as? ExternalUserAgentError)?.code == .programCanceled
        }
        #expect(clock.now - cancelled < .seconds(2), "the agent's blocked read ended at once")
    }

    @Test("a response body over 2 MiB is refused, naming the limit and where")
    func bodyLimit() async throws {
        let listener = try TestListener(answer: "HTTP/1.1 200 OK\r\nContent-Length: 3000000\r\n\r\n")
        let receiver = FakeRedirectReceiver(redirectURI: URL(string: "http://127.0.0.1:\(listener.port)/cb")!)
        let session = ExternalUserAgentSession(
            agent: try headless().makeAgent(), receiver: receiver,
            configuration: .init(expectedState: "st", timeout: .seconds(30)))
        await #expect {
            try await session.run { _ in URL(string: "https://as.example/authorize?state=st")! }
        } throws: { error in
            guard let error = error as? ExternalUserAgentError else { return false }
            return error.code == .presentationFailed && error.message.contains("127.0.0.1:\(listener.port)/cb")
                && error.message.contains("the response body is larger than 2097152 bytes")
                && !error.message.contains("code=")
        }
    }
}

/// A listener on 127.0.0.1 that accepts one connection and writes `answer` (or, when nil, accepts and
/// never answers), holding the connection until it is released.
final class TestListener: @unchecked Sendable {
    let port: Int
    private let fd: Int32
    private let held = NSLock()
    private var connection: Int32 = -1

    init(answer: String?) throws {
        let listening = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listening, $0, size) == 0 && listen(listening, 4) == 0 && getsockname(listening, $0, &size) == 0
            }
        }
        guard bound else {
            close(listening)
            throw TestSupportError("could not listen on 127.0.0.1")
        }
        fd = listening
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in
            let accepted = accept(listening, nil, nil)
            guard accepted >= 0 else { return }
            held.withLock { connection = accepted }
            if let answer {
                _ = Array(answer.utf8).withUnsafeBytes { send(accepted, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
        }
    }

    deinit {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
        held.withLock { if connection >= 0 { close(connection) } }
    }
}

/// The built `eua`, as a user runs it: plugins loaded at once, the headless agent's requests on plain sockets.
@Suite("Headless plugin: repeated sign-ins through the built eua", .onOwnThreads, .timeLimit(.minutes(3)))
struct RepeatedDemoTests {
    @Test("twenty `eua demo` runs in a row, each loading every plugin afresh, all sign in")
    func repeatedDemo() async throws {
        let executable = try TestPaths.product("eua")
        let folder = try TemporaryFolder()
        for run in 1...20 {
            var environment = ProcessInfo.processInfo.environment.filter {
                $0.key != "DISPLAY" && $0.key != "WAYLAND_DISPLAY" && !$0.key.hasPrefix("EUA_")
            }
            environment["TMPDIR"] = folder.path
            // A cache of its own each time: no plugin index, so every plugin file is loaded (concurrently).
            environment["XDG_CACHE_HOME"] = folder.path + "/cache-\(run)"
            let fixed = environment
            let result = try await offThePool {
                try ProcessRunner.run(
                    executable, ["demo", "--json"], environment: fixed, replacingEnvironment: true, timeout: 60)
            }
            #expect(result.status == 0, "run \(run): \(result.stderr)")
            #expect(
                result.stdout.split(separator: "\n").last?.contains("\"ok\":true") == true,
                "run \(run): \(result.stdout)")
            #expect(!result.stderr.contains("closed channel"), "run \(run): \(result.stderr)")
        }
    }
}
