// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import CryptoExtras

/// The signatures of a JWS checked against one key of a provider's key set, with swift-crypto (RFC 7518):
/// RSASSA-PKCS1-v1_5 (`RS256`, `RS384`, `RS512`; §3.3), RSASSA-PSS with MGF1 and a salt as long as the digest
/// (`PS256`, `PS384`, `PS512`; §3.5) and ECDSA with the signature as `R‖S` (`ES256` on P-256, `ES384` on P-384,
/// `ES512` on P-521; §3.4). The key was chosen for the algorithm already (``JSONWebKeySet/select(alg:kid:)``);
/// RSA keys are at least 2048 bits, EC coordinates exactly the curve's size. The signing side of the same
/// rules is ``ClientSigningKey`` and ``DPoPProof``.
enum AsymmetricSignature {
    /// Why a signature was not accepted.
    enum Failure: Error, Equatable {
        /// The key's parameters do not make a public key for the algorithm.
        case unusableKey(String)
        /// The signature does not verify (or does not have the algorithm's form).
        case mismatch(String)
    }

    /// Checks the signature of `token` (`header.payload.signature`) made with `alg` against `key`.
    static func verify(_ token: String, alg: String, key: JSONWebKey) throws(Failure) {
        guard let (input, signature) = SymmetricSignature.signingInput(of: token) else {
            throw .mismatch("the signature is not base64url")
        }
        let valid: Bool
        switch alg {
        case "RS256", "RS384", "RS512", "PS256", "PS384", "PS512":
            let publicKey = try rsaKey(key)
            let padding: _RSA.Signing.Padding = alg.hasPrefix("PS") ? .PSS : .insecurePKCS1v1_5
            let rsaSignature = _RSA.Signing.RSASignature(rawRepresentation: signature)
            valid =
                switch alg.suffix(3) {
                case "256": publicKey.isValidSignature(rsaSignature, for: SHA256.hash(data: input), padding: padding)
                case "384": publicKey.isValidSignature(rsaSignature, for: SHA384.hash(data: input), padding: padding)
                default: publicKey.isValidSignature(rsaSignature, for: SHA512.hash(data: input), padding: padding)
                }
        case "ES256":
            let publicKey = try ecKey(key, size: 32) { try P256.Signing.PublicKey(rawRepresentation: $0) }
            valid = publicKey.isValidSignature(
                try ecSignature(signature, size: 32) { try P256.Signing.ECDSASignature(rawRepresentation: $0) },
                for: input)
        case "ES384":
            let publicKey = try ecKey(key, size: 48) { try P384.Signing.PublicKey(rawRepresentation: $0) }
            valid = publicKey.isValidSignature(
                try ecSignature(signature, size: 48) { try P384.Signing.ECDSASignature(rawRepresentation: $0) },
                for: input)
        case "ES512":
            let publicKey = try ecKey(key, size: 66) { try P521.Signing.PublicKey(rawRepresentation: $0) }
            valid = publicKey.isValidSignature(
                try ecSignature(signature, size: 66) { try P521.Signing.ECDSASignature(rawRepresentation: $0) },
                for: input)
        default:
            throw .unusableKey("\(alg) is not an algorithm this client verifies with a public key")
        }
        guard valid else { throw .mismatch("the signature is not this key's over this token") }
    }

    /// The RSA public key of `n` and `e` (base64url, unsigned big-endian), at least 2048 bits.
    private static func rsaKey(_ key: JSONWebKey) throws(Failure) -> _RSA.Signing.PublicKey {
        guard let n = key.n.flatMap({ Base64URL.decode($0) }), !n.isEmpty,
            let e = key.e.flatMap({ Base64URL.decode($0) }), !e.isEmpty
        else {
            throw .unusableKey("its n or e is missing or not base64url")
        }
        do {
            return try _RSA.Signing.PublicKey(n: n, e: e)
        } catch {
            throw .unusableKey("not an RSA public key of at least 2048 bits (\(n.count * 8)-bit modulus given)")
        }
    }

    /// The EC public key of the coordinates `x` and `y`, each exactly `size` bytes (RFC 7518 §6.2.1.2).
    private static func ecKey<Key>(_ key: JSONWebKey, size: Int, _ make: (Data) throws -> Key) throws(Failure) -> Key {
        guard let x = key.x.flatMap({ Base64URL.decode($0) }), let y = key.y.flatMap({ Base64URL.decode($0) }) else {
            throw .unusableKey("its x or y is missing or not base64url")
        }
        guard x.count == size, y.count == size else {
            throw .unusableKey("its coordinates are \(x.count) and \(y.count) bytes, not \(size) each")
        }
        do {
            return try make(x + y)
        } catch {
            throw .unusableKey("its x and y are not a point on the curve")
        }
    }

    /// An ECDSA signature of `R‖S`, each exactly `size` bytes.
    private static func ecSignature<Signature>(_ bytes: Data, size: Int, _ make: (Data) throws -> Signature)
        throws(Failure) -> Signature
    {
        guard bytes.count == 2 * size else {
            throw .mismatch("the signature is \(bytes.count) bytes, not the \(2 * size) of R and S")
        }
        do {
            return try make(bytes)
        } catch {
            throw .mismatch("the signature is not an ECDSA signature")
        }
    }
}
