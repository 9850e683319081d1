// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import ExternalUserAgentOAuth
import ExternalUserAgentTesting
import Foundation
import Testing

@Suite("AuthState: refresh and persistence")
struct AuthStateTests {
    @Test("saved with mode 0600, reloaded, refreshed with the reloaded state")
    func persistence() async throws {
        let folder = try TemporaryFolder()
        let file = AuthStateFile(path: folder.path + "/state/eua/auth.json")
        try await LocalAuthorizationServer.withServer { server in
            let state = try await FlowHarness.signIn(server, file: file)
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/state/eua")
            #expect(leftovers.sorted() == ["auth.json", "auth.json.lock"], "no temporary file is left behind")
            let lockMode = try FileManager.default.attributesOfItem(atPath: file.lockPath)[.posixPermissions] as? Int
            #expect(lockMode == 0o600)
            let text = try String(contentsOfFile: file.path, encoding: .utf8)
            #expect(!text.contains("client_secret"))

            let reloaded = try await AuthState.load(from: file)
            #expect(await reloaded.isAuthorized)
            #expect(await reloaded.lastTokenResponse?.accessToken == state.lastTokenResponse?.accessToken)
            #expect(await reloaded.idTokenClaims?.subject == "alice")
            let refreshed = try await reloaded.freshTokens(force: true)
            #expect(refreshed.accessToken != (await state.lastTokenResponse?.accessToken))
            #expect(refreshed.idToken != nil)
            let again = try await AuthState.load(from: file)
            #expect(await again.lastTokenResponse?.accessToken == refreshed.accessToken, "the refresh was saved")
        }
    }

    @Test(
        "a refreshed ID token with another auth_time or acr than the sign-in's is refused (max_age, acr_values checked again)",
        arguments: [("auth_time", "1700000999", "auth_time"), ("acr", #""bronze""#, "acr 'bronze'")])
    func refreshedAuthenticationChecked(claim: String, changed: String, said: String) async throws {
        try await LocalAuthorizationServer.withServer { server in
            server.update { $0.idTokenClaimOverrides = ["auth_time": "1700000000", "acr": #""gold""#] }
            let state = try await FlowHarness.signIn(server)
            #expect(await state.idTokenClaims?.authenticationContextClass == "gold")
            // The same values again: accepted.
            _ = try await state.freshTokens(force: true)
            server.update { $0.idTokenClaimOverrides[claim] = changed }
            let error = await #expect(throws: ExternalUserAgentError.self) { try await state.freshTokens(force: true) }
            #expect(error?.code == .idTokenInvalid)
            #expect(error?.message.contains("the refreshed ID token's \(said)") == true, "\(error?.message ?? "")")
            #expect(await state.idTokenClaims?.authenticationContextClass == "gold", "the sign-in's claims are kept")
        }
    }

    @Test("a sign-out's record of revoked tokens: saved, read back, and no token is given any more")
    func revokedTokensRecorded() async throws {
        let folder = try TemporaryFolder()
        let file = AuthStateFile(path: folder.path + "/state/eua/auth.json")
        try await LocalAuthorizationServer.withServer { server in
            let state = try await FlowHarness.signIn(server, file: file)
            let refreshToken = try #require(await state.lastTokenResponse?.refreshToken)
            try await state.recordRevocation(
                [.refreshToken, .accessToken], at: Date(timeIntervalSince1970: 1_800_000_000))
            let text = try String(contentsOfFile: file.path, encoding: .utf8)
            #expect(!text.contains(refreshToken), "the revoked refresh token is not saved any more")
            let reloaded = try await AuthState.load(from: file)
            #expect(
                await reloaded.revokedTokens
                    == RevokedTokens(
                        kinds: [.refreshToken, .accessToken],
                        date: Date(timeIntervalSince1970: 1_800_000_000)))
            #expect(await !reloaded.isAuthorized)
            #expect(await reloaded.lastTokenResponse?.idToken != nil, "the ID token stays, for the end-session request")
            let error = await #expect(throws: ExternalUserAgentError.self) { try await reloaded.freshTokens() }
            #expect(error?.code == .notAuthorized && error?.message.hasPrefix("signed out: a sign-out revoked") == true)
            let before = server.requestLog.count
            _ = await #expect(throws: ExternalUserAgentError.self) { try await reloaded.freshTokens(force: true) }
            #expect(server.requestLog.count == before, "the server is not asked")
            let account = try #require(
                try await AuthAccounts(folder: folder.path + "/accounts", legacyFile: file).accounts().first)
            #expect(account.needsSignIn && !account.canRefresh && account.revokedTokens != nil)
        }
    }

    @Test(
        "a state that cannot replace its file: stateFileInvalid with the reason, no temporary file left (PrivateFile's write)"
    )
    func saveCannotReplace() async throws {
        let folder = try TemporaryFolder()
        try await LocalAuthorizationServer.withServer { server in
            let state = try await FlowHarness.signIn(server)
            let blocked = folder.path + "/eua/auth.json"
            try FileManager.default.createDirectory(atPath: blocked + "/in-the-way", withIntermediateDirectories: true)
            let error = await #expect(throws: ExternalUserAgentError.self) {
                try await state.save(to: AuthStateFile(path: blocked))
            }
            #expect(error?.code == .stateFileInvalid)
            #expect(
                error?.message.contains("authorization state file \(blocked): it could not be replaced") == true,
                "\(error?.message ?? "")")
            let left = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/eua")
            #expect(left.sorted() == ["auth.json", "auth.json.lock"], "no temporary file is left: \(left)")
        }
    }

    @Test("XDG_STATE_HOME decides the default place")
    func standardPlace() {
        #expect(
            AuthStateFile.standard(environment: ["XDG_STATE_HOME": "/x/state", "HOME": "/h"]).path
                == "/x/state/eua/auth-state.json")
        #expect(AuthStateFile.standard(environment: ["HOME": "/h"]).path == "/h/.local/state/eua/auth-state.json")
    }

    @Test("a missing, corrupt, foreign or shared file is stateFileInvalid, never a crash")
    func badFiles() throws {
        let folder = try TemporaryFolder()
        func write(_ name: String, _ text: String, mode: Int = 0o600) throws -> AuthStateFile {
            let path = folder.path + "/" + name
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
            return AuthStateFile(path: path)
        }
        let cases: [(AuthStateFile, String)] = [
            (AuthStateFile(path: folder.path + "/missing.json"), "cannot be read"),
            (try write("corrupt.json", "{not json"), "not JSON"),
            (try write("foreign.json", #"{"access_token":"x"}"#), "not an ExternalUserAgent authorization state"),
            (try write("future.json", #"{"format":"eua-auth-state","version":99}"#), "format version 99"),
            (try write("partial.json", #"{"format":"eua-auth-state","version":1}"#), "incomplete or corrupt"),
            (try write("shared.json", #"{"format":"eua-auth-state","version":1}"#, mode: 0o644), "others may read"),
            (
                try write(
                    "huge.json",
                    #"{"format":"eua-auth-state","version":1,"x":""# + String(repeating: "a", count: 1 << 20) + #""}"#),
                "over the 1048576 allowed; a saved state is a few KiB — delete it and sign in again"
            ),
        ]
        for (file, says) in cases {
            #expect {
                try AuthState.load(from: file)
            } throws: { error in
                let error = error as? ExternalUserAgentError
                return error?.code == .stateFileInvalid && error?.message.contains(says) == true
            }
        }
    }

    @Test("concurrent callers of freshTokens share one refresh")
    func oneRefreshAtATime() async throws {
        try await LocalAuthorizationServer.withServer(.init(accessTokenLifetime: 10)) { server in
            let state = try await FlowHarness.signIn(server)
            #expect(await state.needsRefresh(minimumValidity: .seconds(60)))
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await state.freshTokens(minimumValidity: .seconds(60)).accessToken }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(tokens.count == 1, "every caller got the same refreshed token")
            #expect(server.tokenRequests.filter { $0.grantType == "refresh_token" }.count == 1)
        }
    }

    @Test("no refresh token and an expired access token is notAuthorized; invalid_grant marks the state")
    func notAuthorized() async throws {
        let expired = TokenResponse(accessToken: "a", expiresIn: 1, receivedAt: Date().addingTimeInterval(-100))
        let state = AuthState(
            configuration: exampleConfiguration, client: ClientCredentials(clientID: "app"),
            scope: nil, tokenResponse: expired)
        #expect(await !state.isAuthorized)
        await #expect { try await state.freshTokens() } throws: {
            ExternalUserAgentError.code(of: $0) == .notAuthorized
        }

        try await LocalAuthorizationServer.withServer { server in
            let configuration = try await Discovery().configuration(issuer: server.issuer)
            let stale = AuthState(
                configuration: configuration, client: ClientCredentials(clientID: server.options.clientID),
                scope: "openid", tokenResponse: TokenResponse(accessToken: "a", refreshToken: "revoked"))
            await #expect { try await stale.freshTokens(force: true) } throws: {
                ExternalUserAgentError.code(of: $0) == .oauthError
            }
            #expect(await stale.authorizationError?.error == "invalid_grant")
            #expect(await !stale.isAuthorized)
        }
    }

    @Test(
        "a saved authorization error is loaded: not authorized, and freshTokens says sign in again without asking the server"
    )
    func savedAuthorizationError() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let configuration = try await Discovery().configuration(issuer: server.issuer)
            let folder = try TemporaryFolder()
            let file = AuthStateFile(path: folder.path + "/state.json")
            let refused = AuthState(
                configuration: configuration, client: ClientCredentials(clientID: server.options.clientID),
                scope: "openid", tokenResponse: TokenResponse(accessToken: "a", refreshToken: "dead"),
                authorizationError: OAuthErrorResponse(error: "invalid_grant", errorDescription: "revoked"),
                file: file)
            try await refused.save(to: file)
            let saved = try Data(contentsOf: URL(fileURLWithPath: file.path))

            let loaded = try await AuthState.load(from: file)
            #expect(await loaded.authorizationError?.error == "invalid_grant")
            #expect(await !loaded.isAuthorized)
            await #expect {
                try await loaded.freshTokens(force: true)
            } throws: { error in
                let error = error as? ExternalUserAgentError
                return error?.code == .notAuthorized && error?.message.contains("sign in again") == true
                    && error?.message.contains("invalid_grant") == true
            }
            #expect(server.tokenRequests.isEmpty, "the server was not asked")
            #expect(try Data(contentsOf: URL(fileURLWithPath: file.path)) == saved, "the file is unchanged")
        }
    }

    @Test("two states of one file refreshing at once against a rotating server: both succeed, none is logged out")
    func twoStatesOneFile() async throws {
        try await LocalAuthorizationServer.withServer(.init(rotatesRefreshTokens: true)) { server in
            let folder = try TemporaryFolder()
            let file = AuthStateFile(path: folder.path + "/state.json")
            _ = try await FlowHarness.signIn(server, file: file)
            server.update {
                $0.misbehaviors = [.slowTokenEndpoint]
                $0.tokenEndpointDelay = .milliseconds(500)
            }
            let first = try await AuthState.load(from: file)
            let second = try await AuthState.load(from: file)
            async let a = first.freshTokens(force: true)
            async let b = second.freshTokens(force: true)
            let (tokensA, tokensB) = try await (a, b)
            let refreshes = server.tokenRequests.filter { $0.grantType == "refresh_token" }
            #expect(refreshes.allSatisfy { $0.refusal == nil }, "no refresh token was refused")
            #expect(Set(refreshes.compactMap(\.grantValue)).count == refreshes.count, "no refresh token was used twice")
            let final = try await AuthState.load(from: file)
            let finalTokens = try #require(await final.lastTokenResponse)
            #expect([tokensA.accessToken, tokensB.accessToken].contains(finalTokens.accessToken))
            #expect(await final.authorizationError == nil)
            server.update { $0.misbehaviors = [] }
            #expect(
                try await final.freshTokens(force: true).accessToken != finalTokens.accessToken,
                "the saved refresh token still works")
        }
    }

    @Test("a state read before another process saved never replaces the newer state")
    func staleSaveRefused() async throws {
        try await LocalAuthorizationServer.withServer(.init(rotatesRefreshTokens: true)) { server in
            let folder = try TemporaryFolder()
            let file = AuthStateFile(path: folder.path + "/state.json")
            _ = try await FlowHarness.signIn(server, file: file)
            let stale = try await AuthState.load(from: file)
            let fresh = try await AuthState.load(from: file)
            let refreshed = try await fresh.freshTokens(force: true)
            await #expect {
                try await stale.save(to: file)
            } throws: { error in
                let error = error as? ExternalUserAgentError
                return error?.code == .stateFileInvalid && error?.message.contains("newer state") == true
            }
            #expect(try await AuthState.load(from: file).lastTokenResponse?.refreshToken == refreshed.refreshToken)
            // Refreshing the stale state takes in the newer one first: those tokens were refreshed meanwhile.
            let again = try await stale.freshTokens(force: true)
            #expect(again.accessToken == refreshed.accessToken)
            #expect(server.tokenRequests.filter { $0.grantType == "refresh_token" }.count == 1)
            #expect(server.tokenRequests.allSatisfy { $0.refusal == nil })
        }
    }

    @Test("the lock is waited for up to the file's lockTimeout, then timedOut names the lock file")
    func lockTimeout() async throws {
        try await LocalAuthorizationServer.withServer(
            .init(
                misbehaviors: [.slowTokenEndpoint],
                tokenEndpointDelay: .seconds(3))
        ) { server in
            let folder = try TemporaryFolder()
            let configuration = try await Discovery().configuration(issuer: server.issuer)
            let client = ClientCredentials(clientID: server.options.clientID)
            let file = AuthStateFile(path: folder.path + "/state.json", lockTimeout: .milliseconds(300))
            try await AuthState(
                configuration: configuration, client: client, scope: "openid",
                tokenResponse: TokenResponse(accessToken: "a", refreshToken: "r"), file: file
            ).save(to: file)
            let holder = try await AuthState.load(from: file)
            let waiter = try await AuthState.load(from: file)
            let holding = Task { try? await holder.freshTokens(force: true) }
            while server.tokenRequests.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
            let started = ContinuousClock.now
            await #expect {
                try await waiter.freshTokens(force: true)
            } throws: { error in
                let error = error as? ExternalUserAgentError
                return error?.code == .timedOut && error?.message.contains(file.lockPath) == true
            }
            #expect(ContinuousClock.now - started < .seconds(2))
            #expect(server.tokenRequests.count == 1, "the waiter never asked the server")
            holding.cancel()
        }
    }
}
