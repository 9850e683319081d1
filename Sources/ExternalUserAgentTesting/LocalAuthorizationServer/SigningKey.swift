#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CryptoExtras
import Dispatch
import JWTKit

/// A freshly made signing key of a local server, with its public half as a JWK.
struct SigningKey: Sendable {
    let kid: String
    let algorithm: LocalAuthorizationServerOptions.SigningAlgorithm
    let keys: JWTKeyCollection
    /// The public JWK, as a JSON object.
    let publicJWK: [String: String]

    static func make(_ algorithm: LocalAuthorizationServerOptions.SigningAlgorithm, kid: String) async throws -> SigningKey {
        let keys = JWTKeyCollection()
        let identifier = JWKIdentifier(string: kid)
        switch algorithm {
        case .rs256:
            let privateKey = try await generateOffThePool {
                try Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
            }
            let primitives = try privateKey.publicKey.getKeyPrimitives()
            await keys.add(rsa: privateKey, digestAlgorithm: .sha256, kid: identifier)
            return SigningKey(kid: kid, algorithm: algorithm, keys: keys, publicJWK: [
                "kty": "RSA", "use": "sig", "alg": "RS256", "kid": kid,
                "n": base64URL(primitives.modulus), "e": base64URL(primitives.publicExponent),
            ])
        case .es256:
            let privateKey = ES256PrivateKey()
            guard let parameters = privateKey.parameters else {
                throw LocalAuthorizationServerError("the new P-256 key has no public parameters")
            }
            await keys.add(ecdsa: privateKey, kid: identifier)
            return SigningKey(kid: kid, algorithm: algorithm, keys: keys, publicJWK: [
                "kty": "EC", "use": "sig", "alg": "ES256", "crv": "P-256", "kid": kid,
                "x": parameters.x, "y": parameters.y,
            ])
        }
    }

    /// Key generation takes long (RSA): it runs on a Dispatch thread, not one of the few cooperative ones.
    private static func generateOffThePool<Key: Sendable>(_ make: @escaping @Sendable () throws -> Key) async throws -> Key {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try make() }) }
        }
    }

    func sign(_ claims: some JWTPayload) async throws -> String {
        var header = JWTHeader()
        header.alg = algorithm.rawValue
        header.typ = "JWT"
        return try await keys.sign(claims, kid: JWKIdentifier(string: kid), header: header)
    }

    static func base64URL(_ data: Data) -> String {
        String(data.base64EncodedString().compactMap { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 == "=" ? nil : $0 })
    }
}

/// The claims a local server puts in its ID tokens.
struct ServerIDTokenClaims: JWTPayload {
    var iss: String
    var sub: String
    var aud: String
    var exp: Int
    var iat: Int
    var nonce: String?
    var azp: String?
    var email: String?
    var preferred_username: String?

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// A local server could not start or do its work.
public struct LocalAuthorizationServerError: Error, Sendable, CustomStringConvertible {
    /// What failed and what to do (`HS256 ID tokens need a client secret; set clientSecret`).
    public var description: String
    /// An error whose text is `description`.
    public init(_ description: String) { self.description = description }
}
