// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import ExternalUserAgentOAuth
import ExternalUserAgentTesting
import Foundation
import Testing

/// The device grant without an ID token (OpenID Connect does not define that grant): accepted, with who
/// signed in taken from UserInfo when the server has it; a present but invalid ID token is still refused.
@Suite("device grant without an ID token")
struct DeviceIdentityTests {
    /// Runs `body` with a local server started with `options` and its device grant on (1 s interval); the server is
    /// stopped however `body` ends.
    static func withDeviceServer(
        _ options: LocalAuthorizationServerOptions,
        _ body: (LocalAuthorizationServer) async throws -> Void
    ) async throws {
        try await LocalAuthorizationServer.withServer(options) { server in
            server.deviceAuthorization.update {
                $0.enabled = true
                $0.interval = 1
            }
            try await body(server)
        }
    }

    static func signIn(_ server: LocalAuthorizationServer, file: AuthStateFile? = nil) async throws -> AuthState {
        let service = try await Discovery().configuration(issuer: server.issuer)
        return try await SignIn(
            configuration: service, client: ClientCredentials(clientID: server.options.clientID),
            scopes: ["openid", "email"], timeout: .seconds(20), file: file
        )
        .runDevice(show: { _ in })
    }

    @Test("no ID token and no userinfo endpoint: signed in, who is unknown, the state is saved")
    func noIdentity() async throws {
        try await Self.withDeviceServer(.init(tokenResponseOverrides: ["id_token": ""], servesUserinfo: false)) {
            server in
            let folder = try TemporaryFolder()
            let state = try await Self.signIn(server, file: AuthStateFile(path: folder.path + "/state.json"))
            #expect(await state.idTokenClaims == nil)
            #expect(await state.identity == nil)
            #expect(await state.lastTokenResponse?.accessToken.hasPrefix("at-") == true)
            #expect(FileManager.default.fileExists(atPath: folder.path + "/state.json"))
        }
    }

    @Test("no ID token, a userinfo endpoint: who signed in comes from it, asked with the access token as Bearer")
    func fromUserInfo() async throws {
        try await Self.withDeviceServer(
            .init(
                tokenResponseOverrides: ["id_token": ""], servesUserinfo: true,
                userinfoName: "Alice Example")
        ) { server in
            let folder = try TemporaryFolder()
            let file = AuthStateFile(path: folder.path + "/state.json")
            let state = try await Self.signIn(server, file: file)
            let info = try #require(await state.identity)
            #expect(info.subject == "alice" && info.name == "Alice Example" && info.preferredUsername == "alice")
            let access = try #require(await state.lastTokenResponse?.accessToken)
            let asked = server.requestLog.filter { $0.target == "/userinfo" }
            #expect(asked.count == 1 && asked.first?.header("Authorization") == "Bearer " + access)
            let reloaded = try await AuthState.load(from: file)
            #expect(await reloaded.identity == info, "saved and read back")
        }
    }

    @Test("a present but invalid ID token in the device grant is still refused; nothing is saved")
    func invalidIDToken() async throws {
        try await Self.withDeviceServer(.init(misbehaviors: [.tamperedSignature], servesUserinfo: true)) { server in
            let folder = try TemporaryFolder()
            await #expect {
                _ = try await Self.signIn(server, file: AuthStateFile(path: folder.path + "/state.json"))
            } throws: { error in
                (error as? ExternalUserAgentError)?.code == .idTokenInvalid
            }
            #expect(!FileManager.default.fileExists(atPath: folder.path + "/state.json"))
        }
    }

    @Test("the code flow still needs its ID token when openid was asked for")
    func codeFlowStillNeedsIt() async throws {
        try await LocalAuthorizationServer.withServer(.init(tokenResponseOverrides: ["id_token": ""])) { server in
            await #expect {
                _ = try await FlowHarness.signIn(server)
            } throws: { error in
                let error = error as? ExternalUserAgentError
                return error?.code == .idTokenInvalid && error?.message.contains("has no ID token") == true
            }
        }
    }
}
