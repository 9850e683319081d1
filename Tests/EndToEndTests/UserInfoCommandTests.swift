// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentTesting
import Foundation
import Testing

/// `eua userinfo` (OpenID Connect Core §5.3), the built binary, against the local authorization server:
/// what it sent (bearer token in the header or the body) and what it accepts (the ID token's `sub` only,
/// signed answers checked, claims held elsewhere passed on).
@Suite("eua userinfo, end to end", .onOwnThreads)
struct UserInfoCommandTests {
    /// A server, and a state signed in to it as alice in a folder that lives as long as this value.
    struct SignedIn {
        var server: LocalAuthorizationServer
        var folder: TemporaryFolder
        var stateFile: String
    }

    /// Runs `body` with a server started with `options` and a state signed in to it as alice; the server is stopped
    /// however `body` ends.
    func withSignedIn(
        _ options: LocalAuthorizationServerOptions = .init(),
        _ body: (SignedIn) async throws -> Void
    ) async throws {
        try await LocalAuthorizationServer.withServer(options) { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            let login = try await OIDCRun.login(server, stateFile: stateFile)
            #expect(login.status == 0, "stderr: \(login.stderr)")
            try await body(SignedIn(server: server, folder: folder, stateFile: stateFile))
        }
    }

    @Test("the access token goes as a bearer token in the Authorization header; the claims are shown, no token")
    func bearerHeader() async throws {
        try await withSignedIn { setup in
            let (server, stateFile) = (setup.server, setup.stateFile)
            let result = try await OIDCRun.eua(["userinfo", "--state-file", stateFile])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(
                result.stdout.contains("sub: alice\n") && result.stdout.contains("email: alice@example.com"),
                "\(result.stdout)")
            let accessToken = try #require(try OIDCRun.savedTokens(stateFile)["access_token"] as? String)
            let request = try #require(server.requestLog.first { $0.target == "/userinfo" })
            #expect(request.method == "GET")
            #expect(request.header("Authorization") == "Bearer \(accessToken)")
            #expect(server.userInfoRequests.map(\.tokenPlacement) == ["header"])
            #expect(!result.stdout.contains(accessToken) && !result.stderr.contains(accessToken))
        }
    }

    @Test("--token-in-body sends the token as access_token in a form POST")
    func tokenInBody() async throws {
        try await withSignedIn { setup in
            let (server, stateFile) = (setup.server, setup.stateFile)
            let result = try await OIDCRun.eua(["userinfo", "--state-file", stateFile, "--token-in-body"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(server.userInfoRequests.map(\.tokenPlacement) == ["body"])
            #expect(server.requestLog.first { $0.target == "/userinfo" }?.header("Authorization") == nil)
        }
    }

    @Test("--json: every claim typed (a boolean stays a boolean)")
    func json() async throws {
        try await withSignedIn { setup in
            let stateFile = setup.stateFile
            let result = try await OIDCRun.eua(["userinfo", "--state-file", stateFile, "--json"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let claims = try OIDCRun.lastJSON(result.stdout)
            #expect(claims["sub"] as? String == "alice")
            #expect(claims["email_verified"] as? Bool == true)
        }
    }

    @Test("another sub than the ID token's (rp-userinfo-bad-sub-claim): refused, nothing of it shown")
    func wrongSubject() async throws {
        try await withSignedIn { setup in
            let (server, stateFile) = (setup.server, setup.stateFile)
            server.update { $0.misbehaviors.insert(.wrongUserInfoSubject) }
            let result = try await OIDCRun.eua(["userinfo", "--state-file", stateFile])
            #expect(result.status != 0)
            #expect(
                result.stderr.contains("is about subject 'mallory', not 'alice' whom the ID token names")
                    && result.stderr.contains("userInfoInvalid"), "stderr: \(result.stderr)")
            #expect(!result.stdout.contains("mallory"))
            #expect(server.userInfoRequests.first?.answeredSubject == "mallory")
        }
    }

    @Test("a signed answer (application/jwt) is checked and shown as such")
    func signed() async throws {
        var options = LocalAuthorizationServerOptions(signingAlgorithm: .es256)
        options.signsUserInfo = true
        try await withSignedIn(options) { setup in
            let stateFile = setup.stateFile
            let result = try await OIDCRun.eua(["userinfo", "--state-file", stateFile])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdout.contains("sub: alice (signed response, checked)"), "\(result.stdout)")
        }
    }

    @Test("a signed answer without iss and aud is accepted (errata set 2: SHOULD; the RP test rp-userinfo-sig)")
    func signedWithoutIssuerAndAudience() async throws {
        var options = LocalAuthorizationServerOptions()
        options.signsUserInfo = true
        options.userInfoClaimOverrides = ["iss": "", "aud": ""]
        try await withSignedIn(options) { setup in
            let result = try await OIDCRun.eua(["userinfo", "--state-file", setup.stateFile])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdout.contains("sub: alice (signed response, checked)"), "\(result.stdout)")
        }
    }

    @Test(
        "a signed answer for another audience is refused",
        arguments: [
            ("aud", "\"another-client\"", "is not for this client"),
            ("iss", "\"http://issuer.invalid\"", "has 'http://issuer.invalid', not the issuer"),
        ])
    func signedWrongAudienceOrIssuer(claim: String, value: String, says: String) async throws {
        var options = LocalAuthorizationServerOptions()
        options.signsUserInfo = true
        options.userInfoClaimOverrides = [claim: value]
        try await withSignedIn(options) { setup in
            let stateFile = setup.stateFile
            let result = try await OIDCRun.eua(["userinfo", "--state-file", stateFile])
            #expect(result.status != 0)
            #expect(
                result.stderr.contains(says) && result.stderr.contains("userInfoInvalid"), "stderr: \(result.stderr)")
        }
    }

    @Test(
        "aggregated and distributed claims are listed by source, their access token never shown; --json passes them on")
    func claimsHeldElsewhere() async throws {
        var options = LocalAuthorizationServerOptions()
        options.userInfoClaimOverrides = [
            "_claim_names": #"{"address": "src1", "credit_score": "src2"}"#,
            "_claim_sources": #"{"src1": {"JWT": "eyJhbGciOiJub25lIn0.eyJhZGRyZXNzIjoieCJ9."}, "#
                + #""src2": {"endpoint": "https://bank.example/claims", "access_token": "distributed-secret-token"}}"#,
        ]
        try await withSignedIn(options) { setup in
            let stateFile = setup.stateFile
            let plain = try await OIDCRun.eua(["userinfo", "--state-file", stateFile])
            #expect(plain.status == 0, "stderr: \(plain.stderr)")
            #expect(
                plain.stdout.contains("address: held elsewhere, in a signed JWT of source 'src1' (aggregated)"),
                "\(plain.stdout)")
            #expect(
                plain.stdout.contains(
                    "credit_score: held elsewhere, at https://bank.example/claims (distributed, source 'src2')"))
            #expect(!plain.stdout.contains("distributed-secret-token"))
            let json = try await OIDCRun.eua(["userinfo", "--state-file", stateFile, "--json"])
            let claims = try OIDCRun.lastJSON(json.stdout)
            let sources = try #require(claims["_claim_sources"] as? [String: Any])
            #expect((sources["src2"] as? [String: Any])?["endpoint"] as? String == "https://bank.example/claims")
        }
    }

    @Test("_claim_names naming a source _claim_sources lacks: refused, naming both members")
    func danglingClaimSource() async throws {
        var options = LocalAuthorizationServerOptions()
        options.userInfoClaimOverrides = ["_claim_names": #"{"address": "nowhere"}"#]
        try await withSignedIn(options) { setup in
            let stateFile = setup.stateFile
            let result = try await OIDCRun.eua(["userinfo", "--state-file", stateFile])
            #expect(result.status != 0)
            #expect(
                result.stderr.contains(
                    "names source 'nowhere' for claim 'address' in '_claim_names', which "
                        + "'_claim_sources' does not have") && result.stderr.contains("userInfoFailed"),
                "stderr: \(result.stderr)")
        }
    }

    @Test("an access token about to expire is refreshed (and saved) first; the new one is sent")
    func refreshesFirst() async throws {
        try await withSignedIn(.init(accessTokenLifetime: 30)) { setup in
            let (server, stateFile) = (setup.server, setup.stateFile)
            let before = try #require(try OIDCRun.savedTokens(stateFile)["access_token"] as? String)
            let result = try await OIDCRun.eua(["userinfo", "--state-file", stateFile])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(server.tokenRequests.map(\.grantType) == ["authorization_code", "refresh_token"])
            let after = try #require(try OIDCRun.savedTokens(stateFile)["access_token"] as? String)
            #expect(after != before)
            #expect(server.requestLog.first { $0.target == "/userinfo" }?.header("Authorization") == "Bearer \(after)")
        }
    }

    @Test("a state without an ID token (no openid scope): refused before any UserInfo request, saying why")
    func noIDToken() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            let login = try await OIDCRun.eua([
                "login", "--issuer", server.issuer, "--client-id", server.options.clientID,
                "--scope", "email", "--agent", "headless", "--agent-option", "mode=follow",
                "--timeout", "30", "--state-file", stateFile,
            ])
            #expect(login.status == 0, "stderr: \(login.stderr)")
            let result = try await OIDCRun.eua(["userinfo", "--state-file", stateFile])
            #expect(result.status != 0)
            #expect(
                result.stderr.contains(
                    "this sign-in has no ID token, so a UserInfo response cannot be matched to anyone")
                    && result.stderr.contains("notAuthorized"), "stderr: \(result.stderr)")
            #expect(server.userInfoRequests.isEmpty)
        }
    }

    @Test("a token the endpoint refuses: a clear error saying what to do")
    func refusedToken() async throws {
        try await withSignedIn { setup in
            let (server, stateFile) = (setup.server, setup.stateFile)
            await server.stop()
            try await LocalAuthorizationServer.withServer(port: server.port) { other in
                let result = try await OIDCRun.eua(["userinfo", "--state-file", stateFile])
                #expect(result.status != 0)
                #expect(
                    result.stderr.contains("refused the access token (HTTP 401)")
                        && result.stderr.contains("eua login"),
                    "stderr: \(result.stderr)")
                #expect(other.userInfoRequests.first?.knownToken == false)
            }
        }
    }
}
