// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentTesting
import Foundation
import Testing

/// What `eua accounts` and `eua refresh --if-needed` say, the built binary against the local authorization server
/// (issue 40, point 8).
extension AccountsTokenCommandTests {
    @Test("a numeric subject: 'eua accounts' leads with the username and names the subject as one")
    func numericSubject() async throws {
        var options = LocalAuthorizationServerOptions()
        options.idTokenClaimOverrides = ["preferred_username": "alice", "email": "alice@example.com"]
        try await withSetup(options) { setup in
            #expect(try await setup.login(as: "1").status == 0)
            let plain = try await setup.eua(["accounts"])
            #expect(plain.status == 0, "\(plain.stderr)")
            #expect(
                plain.stdout.hasPrefix(
                    "alice (alice@example.com, subject 1) at \(setup.server.issuer), client test-client [id "),
                "\(plain.stdout)")
            let json = try await setup.eua(["accounts", "--json"])
            let line = try #require(json.stdout.split(separator: "\n").last)
            let accounts = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [[String: Any]])
            #expect(
                accounts.first?["subject"] as? String == "1" && accounts.first?["username"] as? String == "alice",
                "the JSON keys are unchanged: \(accounts)")
        }
    }

    @Test("'eua refresh --if-needed' with a valid token says nothing was refreshed and until when it is valid")
    func refreshIfNeeded() async throws {
        try await withSetup { setup in
            #expect(try await setup.login(as: "alice").status == 0)
            let before = setup.server.tokenRequests.count
            let skipped = try await setup.eua(["refresh", "--if-needed"])
            #expect(skipped.status == 0, "\(skipped.stderr)")
            #expect(
                skipped.stdout.contains(
                    "Nothing was refreshed: the access token for alice at \(setup.server.issuer) "
                        + "is still valid until "), "\(skipped.stdout)")
            #expect(
                !skipped.stdout.contains("State saved") && skipped.stdout.contains("State unchanged in "),
                "\(skipped.stdout)")
            #expect(setup.server.tokenRequests.count == before, "no token request")
            let refreshed = try await setup.eua(["refresh"])
            #expect(refreshed.status == 0, "\(refreshed.stderr)")
            #expect(
                refreshed.stdout.contains("are fresh, valid until ") && refreshed.stdout.contains("State saved to "),
                "\(refreshed.stdout)")
            #expect(setup.server.tokenRequests.count == before + 1)
        }
    }
}
