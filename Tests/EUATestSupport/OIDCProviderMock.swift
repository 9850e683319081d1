import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// oidc-provider-mock (PyPI, installed by scripts/bootstrap) running on 127.0.0.1 on a free port,
/// stopped when the value is released.
public final class OIDCProviderMock: @unchecked Sendable {
    public let port: Int
    public var issuer: String { "http://127.0.0.1:\(port)" }
    private let process: Process

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
        process = Process()
        process.executableURL = python
        process.arguments = ["-W", "ignore", "-m", "oidc_provider_mock", "--host", "127.0.0.1", "--port", String(port)] + arguments
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        let discovery = URL(string: "http://127.0.0.1:\(port)/.well-known/openid-configuration")!
        while Date() < deadline {
            if !process.isRunning {
                let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                throw TestSupportError("oidc-provider-mock exited at start (is it installed? run scripts/bootstrap):\n\(text)")
            }
            if let data = try? Data(contentsOf: discovery), !data.isEmpty { return }
            usleep(100_000)
        }
        process.terminate()
        throw TestSupportError("oidc-provider-mock did not answer on port \(port) within \(timeout) s")
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// A port that was free a moment ago (bound to 0, read back, closed).
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestSupportError("socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw TestSupportError("bind() failed") }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
