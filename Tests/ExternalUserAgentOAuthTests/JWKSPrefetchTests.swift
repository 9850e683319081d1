// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentOAuth
import ExternalUserAgentTesting
import Testing

/// The provider's key set is fetched while the person signs in, so that checking the ID token waits for no
/// round trip after the code exchange — once, and what the server recorded shows it came first.
@Suite("JWKS fetched ahead during the sign-in")
struct JWKSPrefetchTests {
    @Test("one key set request, sent before the token request; the ID token checked with it")
    func fetchedAhead() async throws {
        try await LocalAuthorizationServer.withServer { server in
            // The person takes half a second to sign in (the headless agent's delay-ms): the fetch ahead goes out in
            // that time. Without it the scripted agent can reach the token request first on a loaded machine, since
            // nothing orders the fetch ahead and the sign-in — it only overlaps them.
            let state = try await FlowHarness.signIn(server, agentOptions: ["delay-ms": "500"])
            #expect(await state.idTokenClaims?.subject != nil, "the ID token was checked and kept")
            #expect(server.jwksFetchCount == 1)
            let targets = server.requestLog.map(\.requestLine)
            let keys = try #require(targets.firstIndex { $0.hasPrefix("GET /jwks") })
            let token = try #require(targets.firstIndex { $0.hasPrefix("POST /token") })
            #expect(keys < token, "\(targets)")
        }
    }

    @Test("no openid scope: no ID token to check, so no key set is fetched")
    func notWithoutOpenID() async throws {
        try await LocalAuthorizationServer.withServer { server in
            _ = try await FlowHarness.signIn(server, scopes: ["email"])
            #expect(server.jwksFetchCount == 0)
            #expect(!server.requestLog.contains { $0.target.hasPrefix("/jwks") })
        }
    }
}
