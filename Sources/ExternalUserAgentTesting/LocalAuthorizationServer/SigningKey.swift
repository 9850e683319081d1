// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import CryptoExtras
import ExternalUserAgentSystem

/// A freshly made signing key of a local server, with its public half as a JWK. Tokens are signed with
/// swift-crypto (RS256: RSASSA-PKCS1-v1_5 with SHA-256; ES256: ECDSA P-256, `R‖S`), as RFC 7518 §3 says.
struct SigningKey: Sendable {
    let kid: String
    let algorithm: LocalAuthorizationServerOptions.SigningAlgorithm
    private let privateKey: PrivateKey
    /// The public JWK, as a JSON object.
    let publicJWK: [String: String]

    private enum PrivateKey: @unchecked Sendable {
        case rsa(_RSA.Signing.PrivateKey)
        case p256(P256.Signing.PrivateKey)
    }

    /// A new key, made on a thread of its own (``BlockingCall``): an RSA key takes seconds in a debug build, and
    /// Dispatch's global queue is no way out — on Linux its threads are the cooperative pool's, so two keys made there
    /// at once stall every task of the process.
    static func make(_ algorithm: LocalAuthorizationServerOptions.SigningAlgorithm, kid: String) async throws
        -> SigningKey
    {
        try await BlockingCall.run(name: "eua-test-key") { try generate(algorithm, kid: kid) }
    }

    /// A new key, made on the calling thread, which it blocks for seconds (RSA): for threads that are not the pool's,
    /// such as the server's connection threads.
    static func generate(_ algorithm: LocalAuthorizationServerOptions.SigningAlgorithm, kid: String) throws
        -> SigningKey
    {
        switch algorithm {
        case .rs256:
            let privateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            let primitives = try privateKey.publicKey.getKeyPrimitives()
            return SigningKey(
                kid: kid, algorithm: algorithm, privateKey: .rsa(privateKey),
                publicJWK: [
                    "kty": "RSA", "use": "sig", "alg": "RS256", "kid": kid,
                    "n": base64URL(primitives.modulus), "e": base64URL(primitives.publicExponent),
                ])
        case .es256:
            let privateKey = P256.Signing.PrivateKey()
            let point = privateKey.publicKey.rawRepresentation
            return SigningKey(
                kid: kid, algorithm: algorithm, privateKey: .p256(privateKey),
                publicJWK: [
                    "kty": "EC", "use": "sig", "alg": "ES256", "crv": "P-256", "kid": kid,
                    "x": base64URL(point.prefix(32)), "y": base64URL(point.suffix(32)),
                ])
        }
    }

    /// `claims` as a compact JWS: `{"alg","kid","typ":"JWT"}`, the claims as JSON, and the signature.
    func sign(_ claims: some Encodable) throws -> String {
        let input = try Self.signingInput(
            header: ["alg": algorithm.rawValue, "kid": kid, "typ": "JWT"], claims: claims)
        let signature: Data =
            switch privateKey {
            case .rsa(let key):
                try key.signature(for: SHA256.hash(data: Data(input.utf8)), padding: .insecurePKCS1v1_5)
                    .rawRepresentation
            case .p256(let key): try key.signature(for: Data(input.utf8)).rawRepresentation
            }
        return input + "." + Self.base64URL(signature)
    }

    /// A JWS's signing input, `base64url(header).base64url(claims)`, both as compact JSON with sorted keys — for
    /// these keys' tokens and the keyless ones (``SymmetricJWT``).
    static func signingInput(header: [String: String], claims: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return base64URL(try encoder.encode(header)) + "." + base64URL(try encoder.encode(claims))
    }

    static func base64URL(_ data: some DataProtocol) -> String {
        String(Data(data).base64EncodedString().compactMap { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 == "=" ? nil : $0 })
    }
}

/// The claims a local server puts in its ID tokens.
struct ServerIDTokenClaims: Encodable {
    var iss: String
    var sub: String
    var aud: String
    var exp: Int
    var iat: Int
    var nonce: String?
    var azp: String?
    var email: String?
    var preferred_username: String?
}

/// A local server could not start or do its work.
public struct LocalAuthorizationServerError: Error, Sendable, CustomStringConvertible {
    /// What failed and what to do (`HS256 ID tokens need a client secret; set clientSecret`).
    public var description: String
    /// An error whose text is `description`.
    public init(_ description: String) { self.description = description }
}
