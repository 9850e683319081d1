// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import ExternalUserAgentOAuth
import ExternalUserAgentTesting
import Foundation
import Testing

/// Request parameters that a sign-in could not send or check are refused before anything is sent, never dropped:
/// the device grant carries none of them, max_age and acr need an ID token, and an additional parameter may not
/// repeat one the sign-in sets. A DPoP-bound token is never sent as Bearer.
@Suite("sign-in: request parameters that would go unsent or unchecked are refused")
struct SignInParameterGuardTests {
    @Test(
        "the device grant refuses request parameters (max_age, acr_values…) instead of dropping them; nothing is sent")
    func deviceGrantRefusesParameters() async throws {
        try await LocalAuthorizationServer.withServer { server in
            server.deviceAuthorization.update { $0.enabled = true }
            let configuration = try await Discovery().configuration(issuer: server.issuer)
            var signIn = SignIn(
                configuration: configuration, client: ClientCredentials(clientID: server.options.clientID),
                scopes: ["openid", "email"])
            signIn.parameters.maxAge = 0
            signIn.parameters.acrValues = ["urn:mfa"]
            let error = await #expect(throws: ExternalUserAgentError.self) {
                try await signIn.runDevice(show: { _ in })
            }
            #expect(error?.code == .invalidOptions)
            #expect(error?.message.contains("code flow only") == true, "\(error?.message ?? "")")
            #expect(server.deviceAuthorization.requestCount == 0, "nothing was sent")
        }
    }

    @Test("max_age or acr_values without the openid scope: refused before the agent is shown anything")
    func maxAgeNeedsOpenID() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let configuration = try await Discovery().configuration(issuer: server.issuer)
            for change in [
                { (parameters: inout AuthorizationParameters) in parameters.maxAge = 60 },
                { (parameters: inout AuthorizationParameters) in parameters.acrValues = ["urn:mfa"] },
            ] {
                var signIn = SignIn(
                    configuration: configuration, client: ClientCredentials(clientID: server.options.clientID),
                    scopes: ["profile"])
                change(&signIn.parameters)
                let agent = FakeExternalUserAgent(script: .signIn(at: server, as: "alice"))
                let error = await #expect(throws: ExternalUserAgentError.self) {
                    try await signIn.run(agent: agent, receiver: FakeRedirectReceiver())
                }
                #expect(error?.code == .invalidOptions)
                #expect(error?.message.contains("only the 'openid' scope brings") == true, "\(error?.message ?? "")")
            }
            #expect(server.authorizationRequests.isEmpty, "the agent was never given a URL")
        }
    }

    @Test("an additional parameter that repeats a typed one or an extra one is refused, not sent twice")
    func additionalParameterClashes() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let configuration = try await Discovery().configuration(issuer: server.issuer)
            for (name, extra) in [
                ("max_age", [(name: String, value: String)]()), ("dpop_jkt", []), ("request_uri", []),
                ("claims", [(name: "claims", value: "{}")]),
            ] {
                var signIn = SignIn(
                    configuration: configuration, client: ClientCredentials(clientID: server.options.clientID),
                    scopes: ["openid"], additionalParameters: [(name: name, value: "0")])
                signIn.parameters.maxAge = 3600
                signIn.parameters.extraAuthorizationParameters = extra
                let agent = FakeExternalUserAgent(script: .signIn(at: server, as: "alice"))
                let error = await #expect(throws: ExternalUserAgentError.self, "\(name)") {
                    try await signIn.run(agent: agent, receiver: FakeRedirectReceiver())
                }
                #expect(error?.code == .invalidOptions)
                #expect(error?.message.contains("'\(name)'") == true, "\(error?.message ?? "")")
            }
            #expect(server.authorizationRequests.isEmpty)
        }
    }

    @Test("a DPoP-bound access token with no DPoP key in the state is not sent to UserInfo as Bearer")
    func dpopTokenWithoutKey() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let signedIn = try await FlowHarness.signIn(server)
            let configuration = try await Discovery().configuration(issuer: server.issuer)
            let bound = AuthState(
                configuration: configuration, client: ClientCredentials(clientID: server.options.clientID),
                scope: "openid email",
                tokenResponse: TokenResponse(accessToken: "bound-token", tokenType: "DPoP", expiresIn: 3600),
                idTokenClaims: await signedIn.idTokenClaims)
            let before = server.userInfoRequests.count
            let error = await #expect(throws: ExternalUserAgentError.self) { try await bound.userInfo() }
            #expect(error?.code == .stateFileInvalid)
            #expect(error?.message.contains("no DPoP key") == true, "\(error?.message ?? "")")
            #expect(server.userInfoRequests.count == before, "nothing was sent")
        }
    }
}
