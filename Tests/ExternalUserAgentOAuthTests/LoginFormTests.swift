// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import ExternalUserAgentOAuth
import ExternalUserAgentTesting
import Foundation
import Synchronization
import Testing

@Suite("the local server's login form, answered by the headless agent in follow mode", .onOwnThreads)
struct LoginFormTests {
    @Test("the form's user name becomes the ID token's subject")
    func signsInAsTheFormSays() async throws {
        try await LocalAuthorizationServer.withServer(.init(authorizationPage: .loginForm)) { server in
            let state = try await FlowHarness.signIn(server, agentOptions: ["form.username": "bob"])
            #expect(await state.idTokenClaims?.subject == "bob")
            #expect(await state.idTokenClaims?.email == "bob@example.com")
            #expect(server.authorizationRequests.count == 1, "one GET /authorize; the form posted back")
        }
    }

    @Test("the form's default user name is the configured subject")
    func defaultSubject() async throws {
        try await LocalAuthorizationServer.withServer(.init(subject: "carol", authorizationPage: .loginForm)) {
            server in
            let state = try await FlowHarness.signIn(server)
            #expect(await state.idTokenClaims?.subject == "carol")
        }
    }

    @Test("pressing Deny is access_denied, which the client reports as userCanceled")
    func deny() async throws {
        try await LocalAuthorizationServer.withServer(.init(authorizationPage: .loginForm)) { server in
            await #expect {
                _ = try await FlowHarness.signIn(server, agentOptions: ["form.action": "deny"])
            } throws: { error in
                let error = error as? ExternalUserAgentError
                return error?.code == .userCanceled && error?.message.contains("The user pressed Deny") == true
            }
        }
    }

    @Test("a sign-in reports each step, in order, as it completes")
    func progress() async throws {
        try await LocalAuthorizationServer.withServer(.init(authorizationPage: .loginForm)) { server in
            let folder = try TemporaryFolder()
            let configuration = try await Discovery().configuration(issuer: server.issuer)
            let catalog = try await BuiltPlugins.catalog()
            let agent = try #require(catalog.agent(id: "headless")).makeAgent(options: ["mode": "follow"])
            let receiver = try #require(catalog.receiver(id: "loopback")).makeReceiver()
            let steps = Mutex<[String]>([])
            let file = AuthStateFile(path: folder.path + "/state.json")
            _ = try await SignIn(
                configuration: configuration, client: ClientCredentials(clientID: server.options.clientID),
                timeout: .seconds(20), file: file
            ) { progress in
                let name =
                    switch progress {
                    case .receiverStarted(let uri): "receiver \(uri.host ?? "")"
                    case .authorizationRequestPushed(let expiresIn): "pushed \(expiresIn)"
                    case .presented(let agent): "presented \(agent.id)"
                    case .authorizationResponseAccepted(let response):
                        "accepted iss=\(response.issuer == server.issuer)"
                    case .tokensReceived(let tokens): "tokens id=\(tokens.idToken != nil)"
                    case .idTokenValidated(let claims, let algorithm, let keyID):
                        "id \(claims.subject) \(algorithm) \(keyID != nil)"
                    case .saved(let saved): "saved \(saved == file)"
                    case .callbackRefused(let reason): "refused \(reason)"
                    }
                steps.withLock { $0.append(name) }
            }.run(agent: agent, receiver: receiver)
            #expect(
                steps.withLock { $0 } == [
                    "receiver 127.0.0.1", "presented headless", "accepted iss=true", "tokens id=true",
                    "id alice RS256 true", "saved true",
                ])
        }
    }
}
