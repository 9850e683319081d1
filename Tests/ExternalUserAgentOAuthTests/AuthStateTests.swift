import EUATestSupport
import ExternalUserAgent
import ExternalUserAgentOAuth
import ExternalUserAgentTesting
import Foundation
import Testing

@Suite("AuthState: refresh and persistence", .serialized)
struct AuthStateTests {
    @Test("saved with mode 0600, reloaded, refreshed with the reloaded state")
    func persistence() async throws {
        let folder = try TemporaryFolder()
        let file = AuthStateFile(path: folder.path + "/state/eua/auth.json")
        let server = try await LocalAuthorizationServer.start()
        defer { Task { await server.stop() } }
        let state = try await FlowHarness.signIn(server, file: file)
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/state/eua")
        #expect(leftovers == ["auth.json"], "no temporary file is left behind")
        let text = try String(contentsOfFile: file.path, encoding: .utf8)
        #expect(!text.contains("client_secret"))

        let reloaded = try AuthState.load(from: file)
        #expect(await reloaded.isAuthorized)
        #expect(await reloaded.lastTokenResponse?.accessToken == state.lastTokenResponse?.accessToken)
        #expect(await reloaded.idTokenClaims?.subject == "alice")
        let refreshed = try await reloaded.freshTokens(force: true)
        #expect(refreshed.accessToken != (await state.lastTokenResponse?.accessToken))
        #expect(refreshed.idToken != nil)
        let again = try AuthState.load(from: file)
        #expect(await again.lastTokenResponse?.accessToken == refreshed.accessToken, "the refresh was saved")
    }

    @Test("XDG_STATE_HOME decides the default place")
    func standardPlace() {
        #expect(AuthStateFile.standard(environment: ["XDG_STATE_HOME": "/x/state", "HOME": "/h"]).path == "/x/state/eua/auth-state.json")
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
        let server = try await LocalAuthorizationServer.start(.init(accessTokenLifetime: 10))
        defer { Task { await server.stop() } }
        let state = try await FlowHarness.signIn(server)
        #expect(await state.needsRefresh(minimumValidity: .seconds(60)))
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 { group.addTask { try await state.freshTokens(minimumValidity: .seconds(60)).accessToken } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens.count == 1, "every caller got the same refreshed token")
        #expect(server.tokenRequests.filter { $0.grantType == "refresh_token" }.count == 1)
    }

    @Test("no refresh token and an expired access token is notAuthorized; invalid_grant marks the state")
    func notAuthorized() async throws {
        let expired = TokenResponse(accessToken: "a", expiresIn: 1, receivedAt: Date().addingTimeInterval(-100))
        let state = AuthState(configuration: exampleConfiguration, client: ClientCredentials(clientID: "app"),
                              scope: nil, tokenResponse: expired)
        #expect(await !state.isAuthorized)
        await #expect { try await state.freshTokens() } throws: { ExternalUserAgentError.code(of: $0) == .notAuthorized }

        let server = try await LocalAuthorizationServer.start()
        defer { Task { await server.stop() } }
        let configuration = try await Discovery().configuration(issuer: server.issuer)
        let stale = AuthState(configuration: configuration, client: ClientCredentials(clientID: server.options.clientID),
                              scope: "openid", tokenResponse: TokenResponse(accessToken: "a", refreshToken: "revoked"))
        await #expect { try await stale.freshTokens(force: true) } throws: { ExternalUserAgentError.code(of: $0) == .oauthError }
        #expect(await stale.authorizationError?.error == "invalid_grant")
        #expect(await !stale.isAuthorized)
    }
}
