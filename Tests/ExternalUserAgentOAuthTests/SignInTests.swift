// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import ExternalUserAgentOAuth
import ExternalUserAgentTesting
import Foundation
import Testing

@Suite("sign-in against the local authorization server", .onOwnThreads)
struct SignInTests {
    @Test(
        "a public client: client_id in the body, no secret, PKCE S256 verified by the server",
        arguments: LocalAuthorizationServerOptions.SigningAlgorithm.allCases)
    func publicClient(algorithm: LocalAuthorizationServerOptions.SigningAlgorithm) async throws {
        try await LocalAuthorizationServer.withServer(.init(signingAlgorithm: algorithm)) { server in
            let state = try await FlowHarness.signIn(server)
            #expect(await state.isAuthorized)
            #expect(await state.idTokenClaims?.subject == "alice")
            let record = try #require(server.tokenRequests.first)
            #expect(record.grantType == "authorization_code" && record.clientAuthentication == "none")
            #expect(record.clientID == server.options.clientID && record.clientSecret == nil)
            let authorization = try #require(server.authorizationRequests.first)
            #expect(authorization["code_challenge_method"] == "S256")
            #expect(record.redirectURI == authorization["redirect_uri"], "the identical redirect_uri")
        }
    }

    @Test(
        "a confidential client with client_secret_basic and with client_secret_post",
        arguments: [ClientCredentials.AuthenticationMethod.clientSecretBasic, .clientSecretPost])
    func confidentialClient(method: ClientCredentials.AuthenticationMethod) async throws {
        try await LocalAuthorizationServer.withServer(.init(clientSecret: "s3cr%t:x")) { server in
            _ = try await FlowHarness.signIn(server, secret: "s3cr%t:x", method: method)
            #expect(server.tokenRequests.first?.clientAuthentication == method.rawValue)
            #expect(server.tokenRequests.first?.clientSecret == "s3cr%t:x")
        }
    }

    @Test("the server refuses a wrong PKCE verifier, and the client says so")
    func wrongVerifier() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let configuration = try await Discovery().configuration(issuer: server.issuer)
            // The headless agent follows the flow and hands the callback straight to the session.
            let receiver = FakeRedirectReceiver()
            let request = try AuthorizationRequest(
                configuration: configuration, clientID: server.options.clientID,
                scopes: ["openid"], redirectURI: receiver.redirectURI)
            let agent = try #require(try await BuiltPlugins.catalog().agent(id: "headless"))
                .makeAgent(options: ["mode": "follow", "deliver": "session"])
            let callback = try await ExternalUserAgentSession(
                agent: agent, receiver: receiver,
                configuration: .init(timeout: .seconds(20))
            )
            .run { _ in request.url }
            let code = try AuthorizationResponse(callbackURL: callback, request: request).code
            let forged = try AuthorizationRequest(
                configuration: configuration, clientID: server.options.clientID,
                scopes: ["openid"], redirectURI: request.redirectURI,
                state: request.state, nonce: request.nonce, pkce: PKCE())
            let endpoint = TokenEndpoint(
                configuration: configuration, client: ClientCredentials(clientID: server.options.clientID))
            await #expect {
                try await endpoint.exchange(AuthorizationResponse(code: code, state: request.state), for: forged)
            } throws: { error in
                let error = error as? ExternalUserAgentError
                return error?.code == .oauthError
                    && (error?.underlying as? OAuthErrorResponse)?.error == "invalid_grant"
            }
        }
    }

    struct Misbehaving: Sendable, CustomTestStringConvertible {
        var misbehavior: LocalAuthorizationServerOptions.Misbehavior
        var code: ExternalUserAgentError.Code
        var says: String
        /// The client's HTTP deadline, for faults that make it wait.
        var clientTimeout: Duration = .seconds(15)
        /// How long the sign-in waits for a redirect it accepts.
        var signInTimeout: Duration = .seconds(20)
        var testDescription: String { misbehavior.rawValue }
    }

    static let misbehaving: [Misbehaving] = [
        // A wrong state is turned away (400) and the sign-in waits on for the real redirect, until its deadline.
        .init(misbehavior: .wrongState, code: .timedOut, says: "no callback reached", signInTimeout: .seconds(2)),
        .init(
            misbehavior: .wrongIssuerInResponse, code: .issuerMismatch, says: "came from issuer 'http://issuer.invalid'"
        ),
        .init(misbehavior: .missingIssuerInResponse, code: .issuerMismatch, says: "has no 'iss'"),
        .init(misbehavior: .denyAccess, code: .userCanceled, says: "The user said no"),
        .init(misbehavior: .tamperedSignature, code: .idTokenInvalid, says: "signature does not verify"),
        .init(
            misbehavior: .wrongIssuerInIDToken, code: .issuerMismatch,
            says: "the ID token was issued by 'http://issuer.invalid'"),
        .init(misbehavior: .wrongAudience, code: .idTokenInvalid, says: "audience"),
        .init(misbehavior: .wrongNonce, code: .idTokenInvalid, says: "nonce"),
        .init(misbehavior: .expiredIDToken, code: .idTokenInvalid, says: "expired"),
        .init(misbehavior: .unknownKeyID, code: .idTokenInvalid, says: "not in the provider's key set"),
        .init(misbehavior: .tokenEndpointHTML, code: .tokenRequestFailed, says: "not JSON (text/html)"),
        .init(misbehavior: .tokenEndpointServerError, code: .tokenRequestFailed, says: "HTTP 500"),
        .init(
            misbehavior: .slowTokenEndpoint, code: .tokenRequestFailed, says: "the code exchange at the token endpoint",
            clientTimeout: .seconds(1)),
    ]

    @Test(
        "every misbehaviour the server offers is tested here (wrongIssuerInMetadata: discovery; wrongUserInfoSubject: UserInfoCommandTests; registrationEndpointHTML: RegisterCommandTests; endSessionNeedsHint: LogoutHintTests)"
    )
    func everyMisbehaviourCovered() {
        let covered = Set(Self.misbehaving.map(\.misbehavior))
            .union([.wrongIssuerInMetadata, .wrongUserInfoSubject, .registrationEndpointHTML, .endSessionNeedsHint])
        #expect(covered == Set(LocalAuthorizationServerOptions.Misbehavior.allCases))
    }

    @Test("each misbehaviour fails the sign-in with its own clear error", arguments: misbehaving)
    func misbehaviour(_ test: Misbehaving) async throws {
        try await LocalAuthorizationServer.withServer(
            .init(
                misbehaviors: [test.misbehavior],
                tokenEndpointDelay: .seconds(5))
        ) { server in
            let started = ContinuousClock.now
            await #expect {
                _ = try await FlowHarness.signIn(
                    server, http: OAuthHTTP(timeout: test.clientTimeout), timeout: test.signInTimeout)
            } throws: { error in
                let error = error as? ExternalUserAgentError
                return error?.code == test.code && error?.message.contains(test.says) == true
            }
            if test.misbehavior == .slowTokenEndpoint {
                #expect(ContinuousClock.now - started < .seconds(5), "the client gave up at its own deadline")
            }
            if test.misbehavior == .wrongState {
                #expect(server.tokenRequests.isEmpty, "no code with a wrong state is ever exchanged")
            }
            if test.misbehavior == .unknownKeyID {
                // Once ahead, while the person signs in, and once more for this token (the set fetched ahead may
                // predate a key rotation); never a third time.
                #expect(
                    server.jwksFetchCount == 2, "the key set fetched ahead is fetched once more for a key id it lacks")
            }
        }
    }

    @Test("discovery: the metadata must name the issuer exactly")
    func metadataIssuer() async throws {
        try await LocalAuthorizationServer.withServer(.init(misbehaviors: [.wrongIssuerInMetadata])) { server in
            await #expect { try await Discovery().configuration(issuer: server.issuer) } throws: {
                ExternalUserAgentError.code(of: $0) == .issuerMismatch
            }
            await #expect {
                try await Discovery(http: OAuthHTTP(timeout: .seconds(2))).configuration(issuer: "http://127.0.0.1:1")
            } throws: {
                ExternalUserAgentError.code(of: $0) == .discoveryFailed
            }
            await #expect { try await Discovery().configuration(issuer: "not a url") } throws: {
                ExternalUserAgentError.code(of: $0) == .discoveryFailed
            }
        }
    }

    @Test("a rotated signing key is found by fetching the JWKS again")
    func keyRotation() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let configuration = try await Discovery().configuration(issuer: server.issuer)
            let validator = IDTokenValidator(configuration: configuration, clientID: server.options.clientID)
            let first = try await FlowHarness.signIn(server)
            _ = try await validator.validate(try #require(await first.lastTokenResponse?.idToken), nonce: nil)
            try await server.rotateSigningKey()
            let second = try await FlowHarness.signIn(server)
            let before = server.jwksFetchCount
            _ = try await validator.validate(try #require(await second.lastTokenResponse?.idToken), nonce: nil)
            #expect(server.jwksFetchCount == before + 1)
        }
    }
}
