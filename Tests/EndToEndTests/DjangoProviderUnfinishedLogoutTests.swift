// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import Foundation
import Testing

/// `eua logout` as a new user runs it against django-oauth-toolkit (issue 40.6): no redirect flags, a sign-out that
/// is interrupted or times out. A token the provider recorded as revoked is never printed again.
@Suite("django-oauth-toolkit: eua logout, unfinished", .onOwnThreads)
struct DjangoProviderUnfinishedLogoutTests {
    typealias Setup = DjangoProviderLogoutTests.Setup

    /// Signs in as alice into the account folder (no --state-file), as a person does.
    static func signIn(_ setup: Setup, environment: [String: String]) async throws {
        try setup.provider.addApplication(
            clientID: "native-app", redirectURIs: ["http://127.0.0.1/callback"],
            postLogoutRedirectURIs: ["http://127.0.0.1/signed-out"])
        let login = try await setup.eua(
            [
                "login", "--issuer", setup.provider.issuer, "--client-id", "native-app",
                "--scope", "openid profile", "--redirect-uri", "http://127.0.0.1/callback",
                "--agent-option", "form.username=alice",
                "--agent-option", "form.password=\(DjangoProviderLoginTests.password)",
                "--agent-option", "form.allow=Authorize", "--timeout", "60",
            ]
                + DjangoProviderLogoutTests.follow, environment: environment)
        try #require(login.status == 0, "stderr: \(login.stderr)")
    }

    /// What the provider recorded: every refresh token revoked, no access token left.
    static func expectRevokedAtProvider(_ setup: Setup) throws {
        let records = try setup.provider.records()
        #expect(!records.refresh_tokens.isEmpty && records.refresh_tokens.allSatisfy { $0.revoked != nil })
        #expect(records.access_tokens.isEmpty)
    }

    @Test(
        "no redirect flags: no unregistered post_logout_redirect_uri is sent, and the output says eua cannot confirm the end"
    )
    func noFlags() async throws {
        let setup = try await Setup()
        defer { setup.provider.stop() }
        let environment = ["XDG_STATE_HOME": setup.folder.path + "/state"]
        try await Self.signIn(setup, environment: environment)
        let result = try await setup.eua(
            ["logout", "--timeout", "30"] + DjangoProviderLogoutTests.follow,
            environment: environment)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("eua cannot confirm that the session ended there"), "\(result.stdout)")
        #expect(result.stderr.contains("no post-logout redirect URI is registered here, so none was sent"))
        try Self.expectRevokedAtProvider(setup)
        let endSessions = try setup.provider.requestLog().filter { $0.path == "/o/logout/" }
        #expect(
            endSessions.allSatisfy {
                !$0.query.contains("post_logout_redirect_uri") && !$0.query.contains("id_token_hint")
            })
        let accounts = try await setup.eua(["accounts"], environment: environment)
        #expect(accounts.status == 0 && accounts.stdout.contains("No account is signed in"), "\(accounts.stdout)")
    }

    @Test(
        "interrupted at the provider's page: the manual agent speaks of signing out; afterwards token, accounts and userinfo say signed out"
    )
    func interrupted() async throws {
        let setup = try await Setup()
        defer { setup.provider.stop() }
        let environment = ["XDG_STATE_HOME": setup.folder.path + "/state"]
        try await Self.signIn(setup, environment: environment)
        let process = try InteractiveProcess(
            try TestPaths.product("eua"),
            [
                "logout", "--agent", "manual", "--agent-option", "paste=false",
                "--post-logout-redirect-uri", "http://127.0.0.1/signed-out", "--timeout", "60",
            ],
            environment: [
                "XDG_CONFIG_HOME": setup.folder.path + "/no-config",
                "EUA_CLIENT_SECRET": "",
            ].merging(environment) { $1 })
        let stderr = try await offThePool { try process.waitForStderr { $0.contains("/o/logout/?") } }
        #expect(stderr.contains("To sign out of the provider, open this URL in a browser:"), "\(stderr)")
        #expect(!stderr.contains("To sign in"))
        process.signal(SIGINT)
        let result = try await offThePool { try process.waitForExit(timeout: 20) }
        #expect(result.status == 130, "stderr: \(result.stderr)")
        #expect(
            result.stderr.contains(
                "after revoking the refresh token and access token; the saved state was kept, "
                    + "marked signed out"), "\(result.stderr)")
        try Self.expectRevokedAtProvider(setup)

        let token = try await setup.eua(["token"], environment: environment)
        #expect(token.status == 2, "stdout: \(token.stdout)")
        #expect(token.stdout.isEmpty, "no token is printed")
        #expect(token.stderr.contains("signed out: a sign-out revoked this sign-in's refresh token and access token"))
        let accounts = try await setup.eua(["accounts"], environment: environment)
        #expect(accounts.status == 0)
        #expect(
            accounts.stdout.contains("signed out (its refresh token and access token revoked at "), "\(accounts.stdout)"
        )
        #expect(!accounts.stdout.contains("can refresh"))
        let userinfo = try await setup.eua(["userinfo"], environment: environment)
        #expect(userinfo.status != 0)
        #expect(
            userinfo.stderr.contains("signed out") && !userinfo.stderr.contains("eua refresh"), "\(userinfo.stderr)")
        // Running eua logout again finishes it: nothing revoked twice, the state forgotten.
        let again = try await setup.eua(["logout", "--no-end-session"], environment: environment)
        #expect(again.status == 0, "stderr: \(again.stderr)")
        let revocations = try setup.provider.requestLog().filter { $0.path == "/o/revoke_token/" }
        #expect(revocations.count == 2)
    }

    @Test(
        "the end-session answer times out: exit 3, the tokens revoked at the provider, the state gone, no token given")
    func timesOut() async throws {
        let setup = try await Setup()
        defer { setup.provider.stop() }
        let environment = ["XDG_STATE_HOME": setup.folder.path + "/state"]
        try await Self.signIn(setup, environment: environment)
        let result = try await setup.eua(
            [
                "logout", "--post-logout-redirect-uri", "http://127.0.0.1/signed-out",
                "--timeout", "3", "--agent", "headless", "--allow-test-agents",
                "--agent-option", "mode=never",
            ], environment: environment)
        #expect(result.status == 3, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("[timedOut]"))
        try Self.expectRevokedAtProvider(setup)
        let token = try await setup.eua(["token"], environment: environment)
        #expect(token.status == 2 && token.stdout.isEmpty, "stdout: \(token.stdout)")
    }
}
