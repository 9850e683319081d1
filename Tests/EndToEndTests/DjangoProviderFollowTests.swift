import EUATestSupport
import ExternalUserAgentTesting
import Foundation
import Testing

/// `eua login` with the headless agent in follow mode — the built binary, unmodified — against providers'
/// own pages: what the provider says reaches the user's terminal, and credentials are never posted twice.
@Suite("eua login in follow mode against a provider's pages", .serialized)
struct DjangoProviderFollowTests {
    static let environment = ["EUA_ALLOW_TEST_AGENTS": "1", "EUA_CLIENT_SECRET": ""]

    func eua(_ arguments: [String]) async throws -> ProcessResult {
        let executable = try TestPaths.product("eua")
        return try await offThePool {
            try ProcessRunner.run(executable, arguments, environment: Self.environment, timeout: 90)
        }
    }

    @Test("the local server's 400 page for an unknown client reaches eua login's stderr at once, not a timeout")
    func localErrorPage() async throws {
        let server = try await LocalAuthorizationServer.start()
        defer { Task { await server.stop() } }
        let folder = try TemporaryFolder()
        let stateFile = folder.path + "/state.json"
        let started = Date()
        let result = try await eua(["login", "--issuer", server.issuer, "--client-id", "nobody-registered-this",
                                    "--agent", "headless", "--agent-option", "mode=follow", "--timeout", "60",
                                    "--state-file", stateFile])
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("the provider answered HTTP 400 at \(server.issuer)/authorize: \"unknown client_id 'nobody-registered-this'\""),
                "stderr: \(result.stderr)")
        #expect(Date().timeIntervalSince(started) < 30, "the error ended the flow, the 60 s timeout did not")
        #expect(!FileManager.default.fileExists(atPath: stateFile), "nothing was saved")
    }
}
