// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import ExternalUserAgentOAuth
import ExternalUserAgentTesting
import Foundation
import Testing

/// One deadline for the whole sign-in: a server that never answers ends the flow at the flow's timeout,
/// with an error naming the step and the server.
@Suite("SignInFlow: one deadline", .onOwnThreads)
struct FlowDeadlineTests {
    static func flow(issuer: String, clientID: String = "c", timeout: Duration) throws -> SignInFlow {
        let catalog = try BuiltPlugins.catalog()
        var code = CodeConfiguration(allowTestAgents: true, agentOptions: ["headless": ["mode": "follow"]])
        code.preference = ["headless"]
        code.namedAgent = "headless"
        let configuration = try Configuration.load(
            sources: ConfigurationSources(environment: [:], systemFiles: [], userFile: nil, managedFile: nil),
            code: code)
        return SignInFlow(
            issuer: issuer, client: ClientCredentials(clientID: clientID), timeout: timeout,
            candidates: AgentSelection.candidates(catalog: catalog), configuration: configuration,
            receiver: .plugin(in: catalog))
    }

    @Test(
        "discovery from a server that accepts and never answers ends at the 2 s deadline, naming discovery and the server"
    )
    func silentDiscovery() async throws {
        let silent = try SilentListener()
        defer { silent.close() }
        let started = ContinuousClock.now
        await #expect {
            try await Self.flow(issuer: silent.url, timeout: .seconds(2)).run()
        } throws: { error in
            let message = (error as? ExternalUserAgentError)?.message ?? ""
            return message.contains("discovery failed") && message.contains("127.0.0.1:\(silent.port)")
                && message.contains("what was left of the whole sign-in's time limit")
        }
        #expect(started.duration(to: .now) < .seconds(10))
    }

    @Test(
        "a token endpoint that does not answer ends the flow at its deadline, naming the code exchange and the server")
    func silentTokenEndpoint() async throws {
        try await LocalAuthorizationServer.withServer(
            .init(
                misbehaviors: [.slowTokenEndpoint],
                tokenEndpointDelay: .seconds(60))
        ) { server in
            let started = ContinuousClock.now
            await #expect {
                try await Self.flow(issuer: server.issuer, clientID: server.options.clientID, timeout: .seconds(4))
                    .run()
            } throws: { error in
                let error = error as? ExternalUserAgentError
                let message = error?.message ?? ""
                return error?.code == .tokenRequestFailed && message.contains("code exchange")
                    && message.contains("127.0.0.1:\(server.port)") && message.contains("did not answer")
            }
            #expect(started.duration(to: .now) < .seconds(15))
        }
    }
}
