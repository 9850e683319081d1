// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import ExternalUserAgentOAuth
import ExternalUserAgentTesting
import Foundation
import Logging
import Testing

/// Sign-ins against a ``LocalAuthorizationServer`` through the real plugins: the loopback receiver
/// and the headless agent in follow mode, both loaded with dlopen.
enum FlowHarness {
    static func signIn(
        _ server: LocalAuthorizationServer, secret: String? = nil,
        method: ClientCredentials.AuthenticationMethod? = nil, scopes: [String] = ["openid", "email"],
        file: AuthStateFile? = nil, http: OAuthHTTP = OAuthHTTP(), agentOptions: [String: String] = [:],
        timeout: Duration = .seconds(20), logger: Logger = Logger(label: "test")
    ) async throws -> AuthState {
        let configuration = try await Discovery(logger: logger).configuration(issuer: server.issuer)
        let catalog = try await BuiltPlugins.catalog(logger: logger)
        let agent = try #require(catalog.agent(id: "headless")).makeAgent(
            options: ["mode": "follow"].merging(agentOptions) { $1 })
        let receiver = try #require(catalog.receiver(id: "loopback")).makeReceiver()
        let client = ClientCredentials(
            clientID: server.options.clientID, clientSecret: secret, authenticationMethod: method)
        return try await SignIn(
            configuration: configuration, client: client, scopes: scopes, timeout: timeout,
            file: file, http: http, logger: logger
        ).run(agent: agent, receiver: receiver)
    }
}

extension ExternalUserAgentError {
    static func code(of error: any Error) -> Code? { (error as? ExternalUserAgentError)?.code }
}
