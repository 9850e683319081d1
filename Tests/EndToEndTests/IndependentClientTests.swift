// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentTesting
import Foundation
import Testing

/// The testing kit's local authorization server with a client that is not ours: Authlib's
/// OAuth2Session (PyPI, installed by scripts/bootstrap), driven by Tests/Fixtures/authlib_client.py.
@Suite("local authorization server with an independent client (Authlib)", .onOwnThreads)
struct IndependentClientTests {
    @Test(
        "code + PKCE S256, ID token verified by Authlib's JOSE, then a refresh",
        arguments: LocalAuthorizationServerOptions.SigningAlgorithm.allCases)
    func authlib(algorithm: LocalAuthorizationServerOptions.SigningAlgorithm) async throws {
        try await LocalAuthorizationServer.withServer(
            .init(
                clientID: "authlib-app", subject: "dana",
                signingAlgorithm: algorithm)
        ) { server in
            let python = try #require(ProcessRunner.which("python3"), "python3 is needed; run scripts/bootstrap")
            let script = TestPaths.fixture("authlib_client.py").path
            let result = try await offThePool {
                try ProcessRunner.run(python, [script, server.issuer, "authlib-app"], timeout: 60)
            }
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let json = try LoginCommandTests.lastJSON(result.stdout)
            let claims = try #require(json["claims"] as? [String: Any])
            #expect(claims["sub"] as? String == "dana")
            #expect(claims["iss"] as? String == server.issuer)
            #expect(json["id_token_alg"] as? String == algorithm.rawValue)
            #expect(json["state_matched"] as? Bool == true)
            let accessToken = try #require(json["access_token"] as? String)
            #expect(json["refreshed_access_token"] as? String != accessToken)

            // What the server saw: PKCE S256 on the way in, the verifier and a public client at the token endpoint.
            let authorization = try #require(server.authorizationRequests.first)
            #expect(authorization["code_challenge_method"] == "S256" && authorization["nonce"] != nil)
            let requests = server.tokenRequests
            #expect(requests.map(\.grantType) == ["authorization_code", "refresh_token"])
            #expect(requests.first?.codeVerifier?.count == 64 && requests.first?.clientAuthentication == "none")
        }
    }
}
