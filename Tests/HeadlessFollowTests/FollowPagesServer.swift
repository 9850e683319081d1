// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `Tests/Fixtures/follow_pages_server.py` running on 127.0.0.1 (https when given a ``TestCA``), stopped when
/// released: a provider-like page flow and the log of what it was sent.
final class FollowPagesServer: @unchecked Sendable {
    /// One request the server recorded.
    struct Entry: Decodable {
        var method: String
        var path: String
        var fields: [String]
        var username: String?
        var cookie: Bool
        var origin: String?
    }

    let port: Int
    let scheme: String
    private let child: ChildProcess
    private let folder: TemporaryFolder

    var base: String { "\(scheme)://127.0.0.1:\(port)" }

    init(tls: TestCA? = nil) throws {
        guard let python = ProcessRunner.which("python3") else { throw TestSupportError("python3 is not on PATH") }
        folder = try TemporaryFolder("eua-follow-pages")
        let portFile = folder.path + "/port"
        child = try ChildProcess(
            python,
            [TestPaths.fixture("follow_pages_server.py").path, portFile, folder.path + "/log"]
                + (tls.map { [$0.serverCertificate, $0.serverKey] } ?? []),
            stdin: .null, stdout: .null, stderr: .inherit)
        scheme = tls == nil ? "http" : "https"
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8), let port = Int(text) {
                self.port = port
                return
            }
            guard child.isRunning else { throw TestSupportError("follow_pages_server.py exited at start") }
            usleep(50_000)
        }
        child.terminate()
        throw TestSupportError("follow_pages_server.py did not start within 20 s")
    }

    /// What the server was sent, in order.
    func log() throws -> [Entry] {
        guard let text = try? String(contentsOfFile: folder.path + "/log", encoding: .utf8) else { return [] }
        return try text.split(separator: "\n").map { try JSONDecoder().decode(Entry.self, from: Data($0.utf8)) }
    }

    /// The authorization URL that starts the flow, sending back to `redirectURI`.
    func authorizationURL(redirectURI: String = FollowPagesServer.redirectURI, state: String = "st-1") -> URL {
        URL(string: "\(base)/authorize?redirect_uri=\(redirectURI)&state=\(state)")!
    }

    static let redirectURI = "http://127.0.0.1:9/cb"

    /// SIGTERM, then SIGKILL if it lingers.
    deinit { child.terminate() }
}
