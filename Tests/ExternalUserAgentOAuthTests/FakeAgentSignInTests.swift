// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore
import ExternalUserAgentOAuth
import ExternalUserAgentTesting
import Foundation
import Testing

/// What an app's own test of its sign-in looks like with the testing kit alone: the in-process fake agent acts
/// as the browser against the local authorization server, with no plugin, no browser and no loopback port.
@Suite("The fake agent signs in against the local authorization server, in process")
struct FakeAgentSignInTests {
    static func configuration() throws -> Configuration {
        try Configuration.load(
            sources: ConfigurationSources(
                environment: [:], systemFiles: [], userFile: nil,
                managedFile: nil),
            code: CodeConfiguration(allowTestAgents: true))
    }

    @Test("a whole SignInFlow succeeds: the server's own code is exchanged, iss and the ID token are checked")
    func success() async throws {
        try await LocalAuthorizationServer.withServer(.init(clientID: "my-app", subject: "nobody")) { server in
            let agent = FakeExternalUserAgent(script: .signIn(at: server, as: "alice"))
            let flow = SignInFlow(
                issuer: server.issuer, client: ClientCredentials(clientID: "my-app"),
                scopes: ["openid", "email"], timeout: .seconds(20),
                candidates: [AgentCandidate(agent: agent)], configuration: try Self.configuration(),
                receiver: SignInFlow.Receiver { _ in FakeRedirectReceiver() })
            let state = try await flow.run()
            #expect(await state.isAuthorized)
            #expect(await state.idTokenClaims?.subject == "alice", "the name the fake signed in as")
            #expect(
                await state.lastAuthorizationResponse?.issuer == server.issuer, "the server's own redirect, with iss")
            let exchange = try #require(server.tokenRequests.first)
            #expect(exchange.grantType == "authorization_code" && exchange.refusal == nil)
            #expect(exchange.redirectURI == "http://127.0.0.1:49152/callback")
            #expect(agent.record.presented.count == 1)
            #expect(agent.record.deliveryErrors.count == 1 && agent.record.deliveryErrors.allSatisfy { $0 == nil })
        }
    }

    @Test("the server's refusal (an unknown client) is the agent's error, with the server's words")
    func refusal() async throws {
        try await LocalAuthorizationServer.withServer(.init(clientID: "my-app")) { server in
            let agent = FakeExternalUserAgent(script: .signIn(at: server, as: "alice"))
            let flow = SignInFlow(
                issuer: server.issuer, client: ClientCredentials(clientID: "someone-else"),
                timeout: .seconds(20), candidates: [AgentCandidate(agent: agent)],
                configuration: try Self.configuration(),
                receiver: SignInFlow.Receiver { _ in FakeRedirectReceiver() })
            let error = try await #require(throws: ExternalUserAgentError.self) { try await flow.run() }
            #expect(error.message.contains("unknown client_id 'someone-else'"), "\(error)")
        }
    }
}
