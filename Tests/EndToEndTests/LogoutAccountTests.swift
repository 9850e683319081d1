// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentTesting
import Foundation
import Testing

/// `eua logout` without `--state-file`: it signs out of an account as `eua login` saved it (`--account`, or the
/// only one), the built binary against the local authorization server.
@Suite("eua logout of an account", .onOwnThreads)
struct LogoutAccountTests {
    @Test(
        "two accounts: logout needs --account, signs out of that one only (revoked at the server), then of the last; then not signed in"
    )
    func accounts() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let state = try TemporaryFolder()
            let environment = LogoutCommandTests.environment.merging(["XDG_STATE_HOME": state.path]) { $1 }
            let eua = try TestPaths.product("eua")
            func run(_ arguments: [String]) async throws -> ProcessResult {
                try await offThePool { try ProcessRunner.run(eua, arguments, environment: environment, timeout: 90) }
            }
            var refreshTokens: [String: String] = [:]
            for subject in ["alice", "bob"] {
                server.update { $0.subject = subject }
                let login = try await run(
                    [
                        "login", "--issuer", server.issuer, "--client-id", server.options.clientID, "--json",
                        "--timeout", "30",
                    ] + LogoutCommandTests.follow)
                try #require(login.status == 0, "stderr: \(login.stderr)")
                refreshTokens[subject] = try #require(
                    try LoginCommandTests.lastJSON(login.stdout)["refresh_token"] as? String)
            }

            let ambiguous = try await run(["logout", "--no-end-session"])
            #expect(ambiguous.status == 1, "\(ambiguous.stderr)")
            #expect(ambiguous.stderr.contains("several accounts are signed in; name one"), "\(ambiguous.stderr)")
            #expect(server.revocations.isEmpty, "nothing was sent")

            let bob = try await run(["logout", "--account", "bob", "--no-end-session"])
            #expect(bob.status == 0, "\(bob.stderr)")
            #expect(
                !server.isLiveRefreshToken(refreshTokens["bob"]!) && server.isLiveRefreshToken(refreshTokens["alice"]!))
            let listed = try await run(["accounts", "--json"])
            let accounts = try #require(
                try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
            #expect(accounts.map { $0["subject"] as? String } == ["alice"], "\(listed.stdout)")

            let last = try await run(["logout", "--local"])
            #expect(last.status == 0, "\(last.stderr)")
            #expect(server.isLiveRefreshToken(refreshTokens["alice"]!), "--local sends nothing")
            let none = try await run(["logout", "--local"])
            #expect(none.status == 4)
            #expect(none.stderr.contains("not signed in: no account is signed in"), "\(none.stderr)")

            let both = try await run(["logout", "--account", "alice", "--state-file", state.path + "/x.json"])
            #expect(both.status == 64)
            #expect(both.stderr.contains("give --state-file or --account, not both"), "\(both.stderr)")
        }
    }
}
