// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import CryptoExtras
import ExternalUserAgentCore

/// The client's own private key, for the JWTs it signs: request objects (RFC 9101) and `private_key_jwt`
/// client authentication (RFC 7523). RSA (`RS256`) or EC P-256 (`ES256`), read from a JWK (with `d`) or a PEM
/// file (PKCS #8, or the RSA or EC forms). Never logged; ``description`` names the algorithm and key id only.
public struct ClientSigningKey: Sendable, Hashable, CustomStringConvertible {
    private enum Material: Hashable {
        /// DER of the RSA private key.
        case rsa(Data)
        /// The P-256 private scalar.
        case p256(Data)
    }

    /// `RS256` or `ES256`.
    public let algorithm: String
    /// The key's `kid`, put in the JWT header so the server finds the key among the client's.
    public let keyID: String?
    private let material: Material

    /// Reads the key in the file at `path`, which only this user may read. Throws `invalidOptions` saying what
    /// is wrong with the file.
    public static func load(path: String) throws -> ClientSigningKey {
        let data: Data
        do {
            guard let read = try PrivateFile.read(path) else {
                throw ExternalUserAgentError(.invalidOptions, "client key file \(path): there is no such file")
            }
            data = read
        } catch let failure as PrivateFile.Failure {
            throw ExternalUserAgentError(.invalidOptions, "client key file \(path): \(failure.reason)")
        }
        let text = String(decoding: data, as: UTF8.self)
        do {
            return text.contains("-----BEGIN") ? try ClientSigningKey(pem: text) : try ClientSigningKey(jwk: data)
        } catch let error as ExternalUserAgentError {
            throw ExternalUserAgentError(.invalidOptions, "client key file \(path): \(error.message)")
        }
    }

    /// A key from PEM text: RSA (RS256) or EC P-256 (ES256).
    public init(pem: String, keyID: String? = nil) throws {
        if let key = try? _RSA.Signing.PrivateKey(pemRepresentation: pem) {
            (algorithm, material) = ("RS256", .rsa(key.derRepresentation))
        } else if let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) {
            (algorithm, material) = ("ES256", .p256(key.rawRepresentation))
        } else {
            throw ExternalUserAgentError(
                .invalidOptions,
                "it is PEM, but not an RSA or EC P-256 private key (other curves and encrypted keys are not supported)")
        }
        self.keyID = keyID
    }

    /// A private JWK (RFC 7517): `kty` RSA with `n`, `e`, `d`, `p`, `q`, or `kty` EC, `crv` P-256 with `d`.
    public init(jwk: Data) throws {
        guard case .object(let members)? = JSONValue.read(jwk) else {
            throw ExternalUserAgentError(.invalidOptions, "it is neither PEM nor a JSON Web Key (a JSON object)")
        }
        func bytes(_ name: String) throws -> Data {
            guard let text = members[name]?.stringValue, let value = Base64URL.decode(text) else {
                throw ExternalUserAgentError(
                    .invalidOptions,
                    "its JWK has no '\(name)' in base64url; a private key needs it (RFC 7518 §6)")
            }
            return value
        }
        keyID = members["kid"]?.stringValue
        switch members["kty"]?.stringValue {
        case "RSA":
            do {
                let key = try _RSA.Signing.PrivateKey(
                    n: try bytes("n"), e: try bytes("e"), d: try bytes("d"),
                    p: try bytes("p"), q: try bytes("q"))
                (algorithm, material) = ("RS256", .rsa(key.derRepresentation))
            } catch let error as ExternalUserAgentError {
                throw error
            } catch {
                throw ExternalUserAgentError(.invalidOptions, "its RSA JWK is not a valid private key (\(error))")
            }
        case "EC":
            guard members["crv"]?.stringValue == "P-256" else {
                throw ExternalUserAgentError(.invalidOptions, "its EC JWK is not on curve P-256, the one supported")
            }
            guard let key = try? P256.Signing.PrivateKey(rawRepresentation: try bytes("d")) else {
                throw ExternalUserAgentError(.invalidOptions, "its EC JWK's 'd' is not a P-256 private key")
            }
            (algorithm, material) = ("ES256", .p256(key.rawRepresentation))
        default:
            throw ExternalUserAgentError(.invalidOptions, "its JWK's kty is not RSA or EC")
        }
        if let alg = members["alg"]?.stringValue, alg != algorithm {
            throw ExternalUserAgentError(
                .invalidOptions,
                "its JWK is for '\(UntrustedText.printable(alg))'; this client signs "
                    + "with this key as \(algorithm) only")
        }
    }

    /// The compact JWS of `claims`, signed with this key (`typ` as given).
    func sign(_ claims: [String: JSONValue], type: String = "JWT") throws -> String {
        var header: [String: JSONValue] = ["alg": .string(algorithm), "typ": .string(type)]
        if let keyID { header["kid"] = .string(keyID) }
        let input =
            Base64URL.encode(Data(JSONValue.object(header).jsonText.utf8)) + "."
            + Base64URL.encode(Data(JSONValue.object(claims).jsonText.utf8))
        let signature: Data
        switch material {
        case .rsa(let der):
            let key = try _RSA.Signing.PrivateKey(derRepresentation: der)
            signature = try key.signature(for: SHA256.hash(data: Data(input.utf8)), padding: .insecurePKCS1v1_5)
                .rawRepresentation
        case .p256(let raw):
            signature = try P256.Signing.PrivateKey(rawRepresentation: raw).signature(for: Data(input.utf8))
                .rawRepresentation
        }
        return input + "." + Base64URL.encode(signature)
    }

    /// The public half as a JWK, for a registration's `jwks`.
    public var publicJWK: JSONValue {
        var members: [String: JSONValue] = ["use": .string("sig"), "alg": .string(algorithm)]
        if let keyID { members["kid"] = .string(keyID) }
        switch material {
        case .rsa(let der):
            if let primitives = try? _RSA.Signing.PrivateKey(derRepresentation: der).publicKey.getKeyPrimitives() {
                members["kty"] = .string("RSA")
                members["n"] = .string(Base64URL.encode(primitives.modulus))
                members["e"] = .string(Base64URL.encode(primitives.publicExponent))
            }
        case .p256(let raw):
            if let key = try? P256.Signing.PrivateKey(rawRepresentation: raw) {
                let point = key.publicKey.x963Representation
                members["kty"] = .string("EC")
                members["crv"] = .string("P-256")
                members["x"] = .string(Base64URL.encode(point.dropFirst().prefix(32)))
                members["y"] = .string(Base64URL.encode(point.suffix(32)))
            }
        }
        return .object(members)
    }

    public var description: String { "\(algorithm) key" + (keyID.map { " '\($0)'" } ?? "") }
}
