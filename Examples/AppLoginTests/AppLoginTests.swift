// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import AppLogin
import ExternalUserAgentCore
import ExternalUserAgentTesting
import Testing

/// An app's test suite running its real login code against the testing kit's local authorization
/// server, with the headless agent (a browser with no person at it) and the loopback receiver,
/// both loaded as plugins from beside the test binary. No account, browser or network.
@Suite("AppLogin against a local authorization server")
struct AppLoginTests {
    /// The app's settings in its tests: the headless agent, in follow mode.
    static let headless = CodeConfiguration(
        preference: ["headless"], allowTestAgents: true,
        agentOptions: ["headless": ["mode": "follow"]])

    @Test("signs in as the server's user")
    func signsIn() async throws {
        try await LocalAuthorizationServer.withServer(.init(clientID: "my-app", subject: "alice")) { server in
            let who = try await AppLogin.signIn(issuer: server.issuer, clientID: "my-app", code: Self.headless)
            #expect(who == "alice")
        }
    }

    @Test("a tampered ID token is refused")
    func refusesATamperedToken() async throws {
        try await LocalAuthorizationServer.withServer(.init(clientID: "my-app", misbehaviors: [.tamperedSignature])) {
            server in
            await #expect {
                try await AppLogin.signIn(issuer: server.issuer, clientID: "my-app", code: Self.headless)
            } throws: { ($0 as? ExternalUserAgentError)?.code == .idTokenInvalid }
        }
    }
}
