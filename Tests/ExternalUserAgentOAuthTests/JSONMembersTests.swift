// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore
import ExternalUserAgentABI
@testable import ExternalUserAgentOAuth
import Foundation
import Testing

/// Each saved type says once what JSON it writes (`jsonValue`): what `JSONEncoder` writes through its
/// `encode(to:)` is that same value, and what is written reads back as the value it came from.
@Suite("JSON written by hand: one object per type, for JSONEncoder too")
struct JSONMembersTests {
    private func encoded(_ value: some Encodable) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
    }

    private func decoded<Value: Decodable>(_ type: Value.Type, _ value: JSONValue) throws -> Value {
        try JSONDecoder().decode(type, from: Data(value.jsonText.utf8))
    }

    @Test(
        "server metadata, client, tokens, identity, error and DPoP key: JSONEncoder writes jsonValue, and it reads back"
    )
    func sameThroughCodable() throws {
        var service = ServiceConfiguration(
            issuer: "https://id.example.com", authorizationEndpoint: URL(string: "https://id.example.com/authorize")!,
            tokenEndpoint: URL(string: "https://id.example.com/token")!,
            jwksURI: URL(string: "https://id.example.com/jwks"),
            codeChallengeMethodsSupported: ["S256"])
        service.endSessionEndpoint = URL(string: "https://id.example.com/logout")
        service.requirePushedAuthorizationRequests = true
        #expect(try encoded(service) == service.jsonValue)
        #expect(try decoded(ServiceConfiguration.self, service.jsonValue) == service)

        var client = ClientCredentials(clientID: "app", clientSecret: "s3cret", authenticationMethod: .clientSecretPost)
        client.idTokenAlgorithm = try IDTokenAlgorithm("ES256")
        #expect(try encoded(client) == client.jsonValue)
        #expect(!client.jsonValue.jsonText.contains("s3cret"), "the secret is never written")

        let tokens = TokenResponse(
            accessToken: "at", tokenType: "Bearer", expiresIn: 3600, refreshToken: "rt",
            idToken: nil, scope: "openid")
        #expect(try encoded(tokens) == tokens.jsonValue)
        #expect(
            tokens.jsonValue.jsonText
                == #"{"access_token":"at","expires_in":3600,"refresh_token":"rt","scope":"openid","token_type":"Bearer"}"#
        )

        let identity = UserIdentity(subject: "alice", name: "Alice", email: "a@example.com")
        #expect(try encoded(identity) == identity.jsonValue)
        #expect(try decoded(UserIdentity.self, identity.jsonValue) == identity)

        let error = OAuthErrorResponse(error: "access_denied", errorDescription: "no")
        #expect(try encoded(error) == error.jsonValue)
        #expect(try decoded(OAuthErrorResponse.self, error.jsonValue) == error)

        let key = DPoPKey()
        #expect(try encoded(key) == key.jsonValue)
        #expect(try decoded(DPoPKey.self, key.jsonValue) == key)
    }

    @Test("ID token claims: the typed ones over allClaims, aud as one string or a list; a time past 9999 throws")
    func claims() throws {
        let claims = IDTokenClaims(
            issuer: "https://id.example.com", subject: "alice", audience: ["app"],
            expiration: Date(timeIntervalSince1970: 2_000_000_000),
            issuedAt: Date(timeIntervalSince1970: 1_900_000_000), nonce: "n",
            allClaims: ["groups": .array([.string("admins")]), "sub": .string("someone else")])
        let value = try claims.jsonValue()
        #expect(try encoded(claims) == value)
        guard case .object(let members) = value else {
            Issue.record("not an object")
            return
        }
        #expect(members["sub"] == .string("alice") && members["aud"] == .string("app"))
        #expect(members["exp"] == .number(2_000_000_000) && members["groups"] == .array([.string("admins")]))
        var two = claims
        two.audience = ["app", "other"]
        guard case .object(let twoMembers) = try two.jsonValue() else {
            Issue.record("not an object")
            return
        }
        #expect(twoMembers["aud"] == .array([.string("app"), .string("other")]))
        var far = claims
        far.expiration = Date(timeIntervalSince1970: 300_000_000_000)
        #expect(throws: EncodingError.self) { try far.jsonValue() }
    }
}
