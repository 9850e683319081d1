// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import CryptoExtras
import ExternalUserAgentABI

/// How a local server checks the JWTs a client signs: request objects (RFC 9101) and client assertions
/// (RFC 7523), with the client's public keys (RS256, ES256) or its secret (HS256).
enum ClientJWT {
    /// The verified claims and header of `jwt`, or why it was refused.
    static func verify(_ jwt: String, keys: [JSONValue], secret: String?) -> Result<
        (
            header: [String: JSONValue],
            claims: [String: JSONValue]
        ), Refusal
    > {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = decode(parts[0]), let payload = decode(parts[1]),
            let signature = decode(parts[2]),
            case .object(let header)? = try? JSONDecoder().decode(JSONValue.self, from: headerData),
            case .object(let claims)? = try? JSONDecoder().decode(JSONValue.self, from: payload),
            let alg = header["alg"]?.stringValue
        else {
            return .failure(Refusal("not a signed JWT"))
        }
        let input = Data("\(parts[0]).\(parts[1])".utf8)
        let kid = header["kid"]?.stringValue
        let valid: Bool
        switch alg {
        case "HS256":
            guard let secret else { return .failure(Refusal("HS256 needs a client secret, and this client has none")) }
            valid = HMAC<SHA256>.isValidAuthenticationCode(
                signature, authenticating: input,
                using: SymmetricKey(data: Data(secret.utf8)))
        case "RS256", "ES256":
            let candidates = keys.compactMap { key -> [String: JSONValue]? in
                guard case .object(let fields) = key, kid == nil || fields["kid"]?.stringValue == kid else {
                    return nil
                }
                return fields
            }
            valid = candidates.contains { verify(signature, of: input, alg: alg, key: $0) }
        default:
            return .failure(Refusal("alg '\(alg)' is not accepted"))
        }
        guard valid else { return .failure(Refusal("the \(alg) signature does not verify")) }
        return .success((header, claims))
    }

    struct Refusal: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    private static func verify(_ signature: Data, of input: Data, alg: String, key: [String: JSONValue]) -> Bool {
        func bytes(_ name: String) -> Data? { key[name]?.stringValue.flatMap(decode) }
        if alg == "RS256", key["kty"]?.stringValue == "RSA", let n = bytes("n"), let e = bytes("e"),
            let publicKey = try? _RSA.Signing.PublicKey(n: n, e: e)
        {
            return publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature),
                for: SHA256.hash(data: input), padding: .insecurePKCS1v1_5)
        }
        if alg == "ES256", key["kty"]?.stringValue == "EC", let x = bytes("x"), let y = bytes("y"),
            let publicKey = try? P256.Signing.PublicKey(x963Representation: Data([4]) + x + y),
            let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature)
        {
            return publicKey.isValidSignature(ecdsa, for: input)
        }
        return false
    }

    static func decode(_ text: some StringProtocol) -> Data? {
        var base64 = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}

/// A key pair a test gives its client (the private key, as a PEM file) and the local server (the public
/// JWK, in ``LocalAuthorizationServerOptions/clientPublicKeys``), for `private_key_jwt` and request objects.
public struct TestClientKey: Sendable {
    /// The private key, PKCS #8 PEM.
    public let privateKeyPEM: String
    /// The public key as a JWK (`kid`, `use` `sig`).
    public let publicJWK: JSONValue

    /// A new EC P-256 key (ES256).
    public static func p256(kid: String = "client-key-1") -> TestClientKey {
        let key = P256.Signing.PrivateKey()
        let point = key.publicKey.x963Representation
        return TestClientKey(
            privateKeyPEM: key.pemRepresentation,
            publicJWK: .object([
                "kty": .string("EC"), "crv": .string("P-256"), "kid": .string(kid), "use": .string("sig"),
                "x": .string(SigningKey.base64URL(point.dropFirst().prefix(32))),
                "y": .string(SigningKey.base64URL(point.suffix(32))),
            ]))
    }

    /// A new 2048-bit RSA key (RS256).
    public static func rsa(kid: String = "client-key-1") throws -> TestClientKey {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let primitives = try key.publicKey.getKeyPrimitives()
        return TestClientKey(
            privateKeyPEM: key.pemRepresentation,
            publicJWK: .object([
                "kty": .string("RSA"), "kid": .string(kid), "use": .string("sig"),
                "n": .string(SigningKey.base64URL(primitives.modulus)),
                "e": .string(SigningKey.base64URL(primitives.publicExponent)),
            ]))
    }
}
