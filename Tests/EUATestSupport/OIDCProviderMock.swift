// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// oidc-provider-mock (PyPI, installed by scripts/bootstrap) running on 127.0.0.1 on a free port,
/// stopped when the value is released.
public final class OIDCProviderMock: @unchecked Sendable {
    public let port: Int
    public var issuer: String { "http://127.0.0.1:\(port)" }
    private let child: ChildProcess

    /// Starts the mock and waits (up to `timeout` seconds) until its discovery document answers,
    /// off the cooperative pool.
    public static func start(arguments: [String] = [], timeout: TimeInterval = 30) async throws -> OIDCProviderMock {
        try await offThePool { try OIDCProviderMock(arguments: arguments, timeout: timeout) }
    }

    private init(arguments: [String], timeout: TimeInterval) throws {
        guard let python = ProcessRunner.which("python3") else {
            throw TestSupportError("python3 is not on PATH; run scripts/bootstrap")
        }
        port = try Self.freePort()
        // Its log goes to a file, not a pipe nobody reads (a full pipe would stop it).
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("oidc-provider-mock-\(port).log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        child = try ChildProcess(
            python,
            [
                "-W", "ignore", "-m", "oidc_provider_mock", "--host", "127.0.0.1",
                "--port", String(port),
            ] + arguments,
            stdin: .null, stdout: .file(log.path), stderr: .file(log.path))
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if !child.isRunning {
                let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                throw TestSupportError(
                    "oidc-provider-mock exited at start (is it installed? run scripts/bootstrap):\n\(text)")
            }
            if Self.accepts(port: port) { return }
            usleep(100_000)
        }
        stop()
        throw TestSupportError(
            "oidc-provider-mock did not listen on port \(port) within \(timeout) s; its log: \(log.path)")
    }

    /// Ends the mock: SIGTERM, then SIGKILL if it lingers.
    public func stop() { child.terminate() }

    deinit { stop() }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        } == 0
    }

    /// A port that is free now, for a server this test starts in a child process (which must be told its port).
    ///
    /// Never one of the kernel's ephemeral ports (`net.ipv4.ip_local_port_range`, 32768–60999 here): a port bound to
    /// 0, read back and closed is free only until the next bind to 0 — the suite runs in parallel, and another test's
    /// server (bound to 0) could take it before the child does, so the test would talk to that server. And never one
    /// handed out before in this process. Taken in turn from 20000–32767, each checked by binding it.
    public static func freePort() throws -> Int {
        for _ in 0..<(lastPort - firstPort + 1) {
            let port = nextPort.add(1, ordering: .relaxed).oldValue % (lastPort - firstPort + 1) + firstPort
            if try canBind(port) { return port }
        }
        throw TestSupportError("no free port between \(firstPort) and \(lastPort)")
    }

    private static let firstPort = 20000
    private static let lastPort = 32767
    /// Where the next search begins: a different place in each test process, so two runs at once rarely meet.
    private static let nextPort = Atomic(Int(getpid()) * 97 % (lastPort - firstPort + 1))

    /// Whether `port` on 127.0.0.1 can be bound now (it is released again at once).
    private static func canBind(_ port: Int) throws -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestSupportError("socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        } == 0
    }
}
