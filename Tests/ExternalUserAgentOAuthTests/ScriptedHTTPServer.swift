// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A local server for the HTTP client's tests (`Tests/Fixtures/scripted_http_server.py`): reads each request
/// (head and a Content-Length body), records it, and answers with exactly the bytes it was given — or never;
/// over TLS with a ``TestCertificate``. A process of its own, so waiting for it never holds the test's threads.
final class ScriptedHTTPServer: @unchecked Sendable {
    enum Answer: Sendable {
        /// Writes these bytes, then closes the connection or leaves it open.
        case bytes(String, close: Bool)
        /// Writes these bytes as soon as anything arrives (a whole request or not), then closes.
        case atOnce(String)
        /// Accepts, reads, and never answers.
        case never
    }

    let host: String
    let port: Int
    private let child: ChildProcess
    private let folder: TemporaryFolder

    /// The requests received, head and body as text, in order.
    var requests: [String] {
        guard let text = try? String(contentsOfFile: folder.path + "/log", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let entry = try? JSONDecoder().decode([String: String].self, from: Data(line.utf8)),
                let request = entry["request"].flatMap({ Data(base64Encoded: $0) })
            else { return nil }
            return String(decoding: request, as: UTF8.self)
        }
    }

    /// `http(s)://host:port` (IPv6 in brackets).
    func url(_ pathAndQuery: String = "/", scheme: String = "http", host: String? = nil) -> String {
        let name = host ?? self.host
        return "\(scheme)://\(name.contains(":") ? "[\(name)]" : name):\(port)\(pathAndQuery)"
    }

    private init(host: String, port: Int, child: ChildProcess, folder: TemporaryFolder) {
        self.host = host
        self.port = port
        self.child = child
        self.folder = folder
    }

    /// Listens on `host` at a free port; with `tls`, speaks TLS first with that certificate.
    static func start(host: String = "127.0.0.1", tls: TestCertificate? = nil, answer: Answer) async throws
        -> ScriptedHTTPServer
    {
        guard let python = ProcessRunner.which("python3") else { throw TestSupportError("python3 is not on PATH") }
        let folder = try TemporaryFolder("eua-scripted-http")
        let (mode, bytes): (String, String) =
            switch answer {
            case .bytes(let text, let close): (close ? "bytes" : "bytes-keep-open", text)
            case .atOnce(let text): ("at-once", text)
            case .never: ("never", "")
            }
        try Data(bytes.utf8).write(to: URL(fileURLWithPath: folder.path + "/answer"))
        let portFile = folder.path + "/port"
        let child = try ChildProcess(
            python,
            [
                TestPaths.fixture("scripted_http_server.py").path, host, portFile,
                folder.path + "/log", mode, folder.path + "/answer",
            ]
                + (tls.map { [$0.certificateFile, $0.keyFile] } ?? []),
            stdin: .null, stdout: .null, stderr: .inherit)
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8), let port = Int(text) {
                return ScriptedHTTPServer(host: host, port: port, child: child, folder: folder)
            }
            guard child.isRunning else { throw TestSupportError("scripted_http_server.py exited at start") }
            try await Task.sleep(for: .milliseconds(20))
        }
        child.terminate(grace: 0)
        throw TestSupportError("scripted_http_server.py did not start within 20 s")
    }

    /// Runs `body` with a server started as ``start(host:tls:answer:)`` does, and stops it however `body` ends.
    @discardableResult
    static func withServer<Result>(
        host: String = "127.0.0.1", tls: TestCertificate? = nil, answer: Answer,
        _ body: (ScriptedHTTPServer) async throws -> Result
    ) async throws -> Result {
        let server = try await start(host: host, tls: tls, answer: answer)
        defer { server.child.terminate(grace: 0) }
        return try await body(server)
    }

    /// Stops the server (SIGKILL: it needs no grace).
    func stop() async { child.terminate(grace: 0) }

    deinit { child.terminate(grace: 0) }
}
