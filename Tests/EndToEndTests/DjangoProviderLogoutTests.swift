// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import Foundation
import Testing

/// `eua logout` against django-oauth-toolkit: the provider's own database shows the tokens revoked, and its
/// request log the revocations, the end-session request (with no `id_token_hint` in its URL) and the
/// post-logout redirect.
@Suite("django-oauth-toolkit: eua logout", .onOwnThreads)
struct DjangoProviderLogoutTests {
    /// A provider with alice, and `eua` run against it.
    struct Setup {
        let provider: DjangoProvider
        let folder: TemporaryFolder
        var stateFile: String { folder.path + "/state.json" }

        init(endSession: Bool = true) async throws {
            provider = try await DjangoProvider.start(endSession: endSession)
            try provider.addUser("alice", password: DjangoProviderLoginTests.password, name: "Alice Example")
            folder = try TemporaryFolder()
        }

        func eua(_ arguments: [String], environment: [String: String] = [:]) async throws -> ProcessResult {
            let executable = try TestPaths.product("eua")
            let merged = ["XDG_CONFIG_HOME": folder.path + "/no-config", "EUA_CLIENT_SECRET": ""].merging(environment) {
                $1
            }
            return try await offThePool {
                try ProcessRunner.run(executable, arguments, environment: merged, timeout: 120)
            }
        }

        /// `eua login` through the provider's login and consent pages with the headless agent in follow mode.
        func login(clientID: String, _ extra: [String], environment: [String: String] = [:]) async throws
            -> ProcessResult
        {
            try await eua(
                [
                    "login", "--issuer", provider.issuer, "--client-id", clientID, "--scope", "openid profile",
                    "--agent-option", "form.username=alice",
                    "--agent-option", "form.password=\(DjangoProviderLoginTests.password)",
                    "--agent-option", "form.allow=Authorize",
                    "--timeout", "60", "--state-file", stateFile,
                ] + follow + extra, environment: environment)
        }
    }

    static let follow = ["--agent", "headless", "--allow-test-agents", "--agent-option", "mode=follow"]

    @Test(
        "public client: both tokens revoked, the session ended through the agent, back at the registered URI, state gone"
    )
    func publicClient() async throws {
        let setup = try await Setup()
        defer { setup.provider.stop() }
        try setup.provider.addApplication(
            clientID: "native-app", redirectURIs: ["http://127.0.0.1/callback"],
            postLogoutRedirectURIs: ["http://127.0.0.1/signed-out"])
        let login = try await setup.login(clientID: "native-app", ["--redirect-uri", "http://127.0.0.1/callback"])
        try #require(login.status == 0, "stderr: \(login.stderr)")
        let before = try setup.provider.records()
        let refresh = try #require(before.refresh_tokens.first { $0.client_id == "native-app" })
        #expect(refresh.revoked == nil && before.access_tokens.count == 1)

        let result = try await setup.eua(
            [
                "logout", "--state-file", setup.stateFile, "--post-logout-redirect-uri",
                "http://127.0.0.1/signed-out", "--timeout", "60",
            ] + Self.follow)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(
            result.stdout.contains("Ended the session at \(setup.provider.issuer); the browser came back to this app."))
        #expect(!FileManager.default.fileExists(atPath: setup.stateFile))

        let after = try setup.provider.records()
        #expect(
            after.refresh_tokens.first { $0.token == refresh.token }?.revoked != nil, "the refresh token is revoked")
        #expect(after.access_tokens.isEmpty, "the access token is gone")
        let log = try setup.provider.requestLog()
        let revocations = log.filter { $0.method == "POST" && $0.path == "/o/revoke_token/" }
        #expect(revocations.count == 2 && revocations.allSatisfy { $0.status == 200 })
        #expect(revocations.allSatisfy { $0.form == ["client_id", "token", "token_type_hint"] })
        let endSession = try #require(log.first { $0.path == "/o/logout/" })
        #expect(endSession.method == "GET")
        #expect(endSession.query == ["client_id", "post_logout_redirect_uri", "state"], "no id_token_hint in the URL")
        #expect(endSession.status == 302)
        let back = try #require(endSession.location_path)
        #expect(
            back.hasPrefix("http://127.0.0.1:") && back.hasSuffix("/signed-out"), "the post-logout redirect: \(back)")
        // Nothing is left to refresh with: eua refresh says to sign in.
        let again = try await setup.eua(["refresh", "--state-file", setup.stateFile])
        #expect(again.status == 1)
    }

    @Test(
        "confidential client, revocation refused (wrong secret): exit 3 with the provider's reason; state removed; tokens live"
    )
    func revocationRefused() async throws {
        let setup = try await Setup()
        defer { setup.provider.stop() }
        try setup.provider.addApplication(
            clientID: "conf-app", secret: "right-secret",
            redirectURIs: ["http://127.0.0.1/callback"])
        let login = try await setup.login(
            clientID: "conf-app", ["--redirect-uri", "http://127.0.0.1/callback"],
            environment: ["EUA_CLIENT_SECRET": "right-secret"])
        try #require(login.status == 0, "stderr: \(login.stderr)")
        let result = try await setup.eua(
            ["logout", "--state-file", setup.stateFile, "--no-end-session"],
            environment: ["EUA_CLIENT_SECRET": "wrong-secret"])
        #expect(result.status == 3, "stderr: \(result.stderr)")
        #expect(
            result.stderr.contains(
                "warning: the refresh token was not revoked: the revocation endpoint "
                    + "\(setup.provider.baseURL)/o/revoke_token/ refused to revoke the refresh token (HTTP 401) with 'invalid_client'"
            ))
        #expect(
            result.stderr.contains(
                "give the client secret as for the sign-in (--client-secret-file PATH or EUA_CLIENT_SECRET)"))
        #expect(!result.stderr.contains("wrong-secret") && !result.stdout.contains("wrong-secret"))
        #expect(
            !FileManager.default.fileExists(atPath: setup.stateFile), "by default the state is forgotten all the same")
        let records = try setup.provider.records()
        #expect(records.refresh_tokens.allSatisfy { $0.revoked == nil } && records.access_tokens.count == 1)
        let revocations = try setup.provider.requestLog().filter { $0.path == "/o/revoke_token/" }
        #expect(revocations.count == 2 && revocations.allSatisfy { $0.status == 401 && $0.authorization == "Basic" })
    }

    @Test("a provider without end-session: a clear warning, the tokens still revoked and the state forgotten")
    func withoutEndSession() async throws {
        let setup = try await Setup(endSession: false)
        let provider = setup.provider
        defer { provider.stop() }
        try provider.addApplication(clientID: "native-app", redirectURIs: ["http://127.0.0.1/callback"])
        let login = try await setup.login(clientID: "native-app", ["--redirect-uri", "http://127.0.0.1/callback"])
        try #require(login.status == 0, "stderr: \(login.stderr)")
        let result = try await setup.eua(["logout", "--state-file", setup.stateFile] + Self.follow)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("advertises no end_session_endpoint"))
        let records = try provider.records()
        #expect(records.refresh_tokens.allSatisfy { $0.revoked != nil } && records.access_tokens.isEmpty)
        #expect(try provider.requestLog().allSatisfy { $0.path != "/o/logout/" })
        #expect(!FileManager.default.fileExists(atPath: setup.stateFile))
    }
}
