// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore

/// The `client_assertion` of the JWT client authentication methods (RFC 7523 §2.2, OpenID Connect Core §9):
/// `private_key_jwt` signs with the client's key, `client_secret_jwt` with its secret (HS256).
enum ClientAssertion {
    static let type = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// How long an assertion is good for.
    static let lifetime: TimeInterval = 60

    /// The fields to add to a request to `audience` (the token endpoint); none for the other methods.
    /// Throws `invalidOptions` when the client lacks its key or secret.
    static func fields(for client: ClientCredentials, audience: URL, now: Date = Date()) throws -> [(String, String)] {
        let method = client.authenticationMethod
        guard method == .privateKeyJWT || method == .clientSecretJWT else { return [] }
        let issued = now.timeIntervalSince1970.rounded(.down)
        let claims: [String: JSONValue] = [
            "iss": .string(client.clientID), "sub": .string(client.clientID), "aud": .string(audience.absoluteString),
            "jti": .string(SecureRandom.token(bits: 128)), "iat": .number(issued), "exp": .number(issued + lifetime),
        ]
        let assertion: String
        if method == .privateKeyJWT {
            guard let key = client.signingKey else {
                throw ExternalUserAgentError(
                    .invalidOptions,
                    "client '\(client.clientID)' authenticates with private_key_jwt, which needs its private key; give it "
                        + "(a JWK or PEM file)", remedies: [.giveClientKey])
            }
            assertion = try key.sign(claims)
        } else {
            guard let secret = client.clientSecret, !secret.isEmpty else {
                throw ExternalUserAgentError(
                    .invalidOptions,
                    "client '\(client.clientID)' authenticates with client_secret_jwt, which needs its secret; give it",
                    remedies: [.giveClientSecret])
            }
            let input =
                Base64URL.encode(
                    Data(JSONValue.object(["alg": .string("HS256"), "typ": .string("JWT")]).jsonText.utf8))
                + "." + Base64URL.encode(Data(JSONValue.object(claims).jsonText.utf8))
            assertion = input + "." + (SymmetricSignature.sign(input, alg: "HS256", secret: secret) ?? "")
        }
        return [("client_assertion_type", type), ("client_assertion", assertion)]
    }
}
