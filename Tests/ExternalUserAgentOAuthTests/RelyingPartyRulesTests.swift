// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Crypto
import ExternalUserAgentCore
import ExternalUserAgentOAuth
import Foundation
import Testing

/// The OpenID Connect relying-party rules that need no server: a registered `none` or HMAC ID token
/// algorithm, the shapes of registration and `claims` requests, WebFinger's account normalization, and the
/// client's key files.
@Suite("OpenID Connect relying-party rules")
struct RelyingPartyRulesTests {
    static let configuration = ServiceConfiguration(
        issuer: TestKeys.issuer,
        authorizationEndpoint: URL(string: "https://id.example.com/authorize")!,
        tokenEndpoint: URL(string: "https://id.example.com/token")!)

    /// A compact JWS of the valid claims with header `alg`: unsigned, or HMAC with `secret`.
    static func token(alg: String, secret: String? = nil, signature: String? = nil) -> String {
        let input =
            TestKeys.base64URL(J.object(["alg": .string(alg), "typ": "JWT"]).data) + "."
            + TestKeys.base64URL(J.object(TestKeys.claims()).data)
        if let signature { return input + "." + signature }
        guard let secret else { return input + "." }
        let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return input + "." + TestKeys.base64URL(Data(mac))
    }

    static func validator(_ alg: String?, secret: String? = nil) throws -> IDTokenValidator {
        var client = ClientCredentials(clientID: TestKeys.clientID, clientSecret: secret)
        client.idTokenAlgorithm = try alg.map(IDTokenAlgorithm.init)
        return IDTokenValidator(configuration: configuration, client: client)
    }

    static func refused(_ work: () async throws -> some Any, says: String) async {
        await #expect {
            _ = try await work()
        } throws: { error in
            guard let error = error as? ExternalUserAgentError, error.message.contains(says) else {
                Issue.record("not what was expected: \(error)")
                return false
            }
            return true
        }
    }

    @Test("none: accepted from the code exchange only, with its claims still checked")
    func unsigned() async throws {
        let validator = try Self.validator("none")
        let claims = try await validator.validate(
            Self.token(alg: "none"), nonce: TestKeys.nonce, delivery: .codeExchange)
        #expect(claims.subject == "alice")
        for delivery in [IDTokenDelivery.refresh, .deviceGrant, .other] {
            await Self.refused(
                { try await validator.validate(Self.token(alg: "none"), nonce: nil, delivery: delivery) },
                says: "accepted only straight from the token endpoint in the code flow")
        }
        await Self.refused(
            { try await validator.validate(Self.token(alg: "none"), nonce: "another", delivery: .codeExchange) },
            says: "nonce is not this sign-in's")
        await Self.refused(
            {
                try await validator.validate(
                    Self.token(alg: "none", signature: "c2ln"), nonce: TestKeys.nonce,
                    delivery: .codeExchange)
            },
            says: "says alg none but carries a signature")
    }

    @Test("HS256: verified with the client secret; another secret or algorithm is refused")
    func hmac() async throws {
        let validator = try Self.validator("HS256", secret: "the-secret")
        let claims = try await validator.validate(Self.token(alg: "HS256", secret: "the-secret"), nonce: TestKeys.nonce)
        #expect(claims.subject == "alice")
        await Self.refused(
            { try await validator.validate(Self.token(alg: "HS256", secret: "not-it"), nonce: TestKeys.nonce) },
            says: "HS256 signature does not verify with the client secret")
        await Self.refused(
            { try await validator.validate(Self.token(alg: "none"), nonce: TestKeys.nonce, delivery: .codeExchange) },
            says: "is signed with 'none', but the client is registered with 'HS256'")
        await Self.refused(
            {
                try await Self.validator(nil, secret: "the-secret")
                    .validate(Self.token(alg: "HS256", secret: "the-secret"), nonce: TestKeys.nonce)
            },
            says: "does not accept by default")
    }

    @Test("HMAC needs a confidential client; unknown names are refused")
    func algorithmChecks() throws {
        #expect(throws: ExternalUserAgentError.self) {
            try IDTokenAlgorithm("HS256").check(for: ClientCredentials(clientID: "c"))
        }
        try IDTokenAlgorithm("HS256").check(for: ClientCredentials(clientID: "c", clientSecret: "s"))
        try IDTokenAlgorithm("none").check(for: ClientCredentials(clientID: "c"))
        #expect(throws: ExternalUserAgentError.self) { try IDTokenAlgorithm("hs256") }
        #expect(throws: ExternalUserAgentError.self) { try IDTokenAlgorithm("RSA-OAEP") }
    }

    @Test(
        "registration: native redirect URIs only",
        arguments: [
            ("http://127.0.0.1/cb", true), ("http://[::1]:8080/cb", true), ("http://localhost/cb", true),
            ("com.example.app:/cb", true), ("https://app.example.com/cb", false), ("http://example.com/cb", false),
            ("myapp:/cb", false), ("http://127.0.0.1/cb#x", false),
        ])
    func redirectURIs(uri: String, accepted: Bool) throws {
        let url = try #require(URL(string: uri))
        if accepted {
            _ = try ClientRegistrationRequest(redirectURIs: [url])
        } else {
            #expect(throws: ExternalUserAgentError.self) { try ClientRegistrationRequest(redirectURIs: [url]) }
        }
    }

    @Test("a registration's description never holds its secrets")
    func registrationDescription() {
        let registration = ClientRegistration(
            issuer: "https://id.example.com", clientID: "c1", clientSecret: "sec-ret",
            registrationAccessToken: "reg-token", redirectURIs: [], tokenEndpointAuthMethod: .clientSecretBasic)
        #expect(!"\(registration)".contains("sec-ret") && !"\(registration)".contains("reg-token"))
        #expect(registration.credentials.clientSecret == "sec-ret")
    }

    @Test(
        "claims requests: §5.5's shape",
        arguments: [
            (#"{"userinfo": {"email": null}, "id_token": {"auth_time": {"essential": true}}}"#, nil),
            (#"{"id_token": {"acr": {"values": ["urn:a", "urn:b"]}}}"#, nil),
            (#"[]"#, "is not a JSON object"),
            (#"{}"#, "is empty"),
            (#"{"userinfo": []}"#, "'userinfo' that is not an object"),
            (#"{"userinfo": {"email": 1}}"#, "'userinfo.email' that is neither null nor an object"),
            (#"{"id_token": {"acr": {"values": "urn:a"}}}"#, "'id_token.acr.values' that is not an array"),
        ] as [(String, String?)])
    func claimsRequests(json: String, problem: String?) async throws {
        guard let problem else {
            #expect(try ClaimsRequest(json: json).parameter.name == "claims")
            return
        }
        await Self.refused({ try ClaimsRequest(json: json) }, says: problem)
    }

    @Test("WebFinger normalization (OpenID Connect Discovery §2.1)")
    func webFingerNormalization() async throws {
        #expect(try WebFinger.normalize("alice@example.com") == ("acct:alice@example.com", "example.com"))
        #expect(
            try WebFinger.normalize("acct:juliet%40capulet.example@shopping.example.com")
                == ("acct:juliet%40capulet.example@shopping.example.com", "shopping.example.com"))
        #expect(try WebFinger.normalize("joe@localhost:8080") == ("acct:joe@localhost:8080", "localhost:8080"))
        #expect(try WebFinger.normalize("https://example.com/joe#frag") == ("https://example.com/joe", "example.com"))
        await Self.refused({ try WebFinger.normalize("alice") }, says: "has no user@ part")
        await Self.refused({ try WebFinger.normalize("alice@exa mple.com") }, says: "has no valid host")
    }

    @Test("client keys: PEM and JWK, RSA and P-256; other keys are refused saying why")
    func clientKeys() async throws {
        #expect(try ClientSigningKey(pem: TestKeys.rsaPEM).algorithm == "RS256")
        let ec = P256.Signing.PrivateKey()
        #expect(try ClientSigningKey(pem: ec.pemRepresentation).algorithm == "ES256")
        let point = ec.publicKey.x963Representation
        let jwk = J.object([
            "kty": "EC", "crv": "P-256", "kid": "k1", "d": .string(TestKeys.base64URL(ec.rawRepresentation)),
            "x": .string(TestKeys.base64URL(point.dropFirst().prefix(32))),
            "y": .string(TestKeys.base64URL(point.suffix(32))),
        ])
        let key = try ClientSigningKey(jwk: jwk.data)
        #expect(key.keyID == "k1" && key.algorithm == "ES256")
        #expect(!"\(key)".contains(TestKeys.base64URL(ec.rawRepresentation)))
        await Self.refused(
            { try ClientSigningKey(jwk: J.object(["kty": "EC", "crv": "P-384", "d": "AA"]).data) },
            says: "not on curve P-256")
        await Self.refused({ try ClientSigningKey(jwk: J.object(["kty": "RSA", "n": "AQAB"]).data) }, says: "no 'e'")
        await Self.refused(
            { try ClientSigningKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----") },
            says: "not an RSA or EC P-256 private key")
    }
}
