// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentABI
import Crypto
import ExternalUserAgentCore

/// The key pair a DPoP sign-in (RFC 9449) proves possession of: ES256 (P-256), made fresh for each sign-in and kept
/// with its tokens, since a refresh must prove the same key.
///
/// Saved as a private JWK (`kty`, `crv`, `x`, `y`, `d`) in the state; never logged: ``description`` shows the
/// thumbprint only.
public struct DPoPKey: Sendable, Hashable, Codable, CustomStringConvertible {
    private let scalar: Data

    /// A new random key.
    public init() {
        scalar = P256.Signing.PrivateKey().rawRepresentation
    }

    private var privateKey: P256.Signing.PrivateKey {
        // The scalar was checked when this key was made or read.
        try! P256.Signing.PrivateKey(rawRepresentation: scalar)
    }

    /// The public key as a JWK, as the proof's `jwk` header carries it.
    public var publicJWK: [String: JSONValue] {
        let (x, y) = coordinates
        return ["kty": .string("EC"), "crv": .string("P-256"), "x": .string(x), "y": .string(y)]
    }

    /// The public point's `x` and `y`, base64url.
    private var coordinates: (x: String, y: String) {
        let point = privateKey.publicKey.x963Representation
        return (Base64URL.encode(point.dropFirst().prefix(32)), Base64URL.encode(point.suffix(32)))
    }

    /// The RFC 7638 thumbprint of the public key (base64url SHA-256): the `dpop_jkt` and `cnf.jkt` value.
    public var thumbprint: String {
        let jwk = publicJWK
        let members = ["crv", "kty", "x", "y"].map { "\"\($0)\":\"\(jwk[$0]?.stringValue ?? "")\"" }.joined(
            separator: ",")
        return Base64URL.encode(Data(SHA256.hash(data: Data(("{" + members + "}").utf8))))
    }

    /// `DPoP key <thumbprint>`.
    public var description: String { "DPoP key \(thumbprint)" }

    /// The ES256 signature (`r || s`) of `data`.
    func sign(_ data: Data) throws -> Data {
        try privateKey.signature(for: data).rawRepresentation
    }

    enum CodingKeys: String, CodingKey { case kty, crv, x, y, d }

    /// Reads a private P-256 JWK; throws ``InvalidFieldError`` naming the member that is wrong.
    public init(from decoder: any Decoder) throws {
        let fields = try JSONFields<CodingKeys>(decoder)
        guard try fields.string(.kty) == "EC" else { throw InvalidFieldError(field: "kty", problem: "is not EC") }
        guard try fields.string(.crv) == "P-256" else { throw InvalidFieldError(field: "crv", problem: "is not P-256") }
        guard let d = Base64URL.decode(try fields.string(.d)), d.count == 32,
            let key = try? P256.Signing.PrivateKey(rawRepresentation: d)
        else {
            throw InvalidFieldError(field: "d", problem: "is not a P-256 private scalar in base64url")
        }
        scalar = key.rawRepresentation
        let (x, y) = coordinates
        guard try fields.string(.x) == x, try fields.string(.y) == y else {
            throw InvalidFieldError(field: "x", problem: "and 'y' are not the public key of 'd'")
        }
    }

    /// Writes the private JWK.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let (x, y) = coordinates
        try container.encode("EC", forKey: .kty)
        try container.encode("P-256", forKey: .crv)
        try container.encode(x, forKey: .x)
        try container.encode(y, forKey: .y)
        try container.encode(Base64URL.encode(scalar), forKey: .d)
    }
}
