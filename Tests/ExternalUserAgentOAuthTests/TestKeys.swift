// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Crypto
import ExternalUserAgentABI
import Foundation
import JWTKit

/// A JSON value for hand-made token payloads, headers and key sets: the ABI's `JSONValue`, written as literals.
typealias J = JSONValue

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByBooleanLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(uniqueKeysWithValues: elements))
    }

    /// The JSON text.
    var text: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try! encoder.encode(self), as: UTF8.self)
    }

    var data: Data { Data(text.utf8) }
}

/// A payload of any claims, signed as given.
struct AnyClaims: JWTPayload {
    var claims: [String: J]
    init(_ claims: [String: J]) { self.claims = claims }
    init(from decoder: any Decoder) throws { claims = [:] }
    func encode(to encoder: any Encoder) throws { try claims.encode(to: encoder) }
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// Keys for hand-made ID tokens: their JWKs and tokens signed by them with any header `alg`.
enum TestKeys {
    static let issuer = "https://id.example.com"
    static let clientID = "app"
    static let nonce = "n-0123456789"

    /// A fixed 2048-bit RSA key (generating one takes long).
    static let rsa = try! Insecure.RSA.PrivateKey(pem: rsaPEM)
    static let ec = ES256PrivateKey()
    static let ed = try! EdDSA.PrivateKey(curve: .ed25519)

    enum Key { case rsa, rsaPSS, ec, ed }

    /// The public JWK of `key`, with the given `kid`, `alg`, `use` and `key_ops` (absent when `nil`).
    static func jwk(
        _ key: Key, kid: String? = nil, alg: String? = nil, use: String? = nil,
        keyOps: [String]? = nil
    ) -> J {
        var fields: [String: J]
        switch key {
        case .rsa, .rsaPSS:
            let primitives = try! rsa.publicKey.getKeyPrimitives()
            fields = [
                "kty": "RSA", "n": .string(base64URL(primitives.modulus)),
                "e": .string(base64URL(primitives.publicExponent)),
            ]
        case .ec:
            let parameters = ec.parameters!
            fields = ["kty": "EC", "crv": "P-256", "x": .string(parameters.x), "y": .string(parameters.y)]
        case .ed:
            fields = ["kty": "OKP", "crv": "Ed25519", "x": .string(base64URL(ed.publicKey.rawRepresentation))]
        }
        if let kid { fields["kid"] = .string(kid) }
        if let alg { fields["alg"] = .string(alg) }
        if let use { fields["use"] = .string(use) }
        if let keyOps { fields["key_ops"] = .array(keyOps.map(J.string)) }
        return .object(fields)
    }

    static func keySet(_ keys: J...) -> Data { J.object(["keys": .array(keys)]).data }

    /// Claims that pass every check, with `changes` applied (`nil` removes a claim).
    static func claims(_ changes: [String: J?] = [:], now: Date = Date()) -> [String: J] {
        let seconds = Int(now.timeIntervalSince1970)
        var claims: [String: J] = [
            "iss": .string(issuer), "sub": "alice", "aud": .string(clientID),
            "exp": .number(Double(seconds + 600)), "iat": .number(Double(seconds)),
            "nonce": .string(nonce),
        ]
        for (name, value) in changes { claims[name] = value }
        return claims
    }

    /// A token signed by `key` (RSA: PKCS#1 v1.5 SHA-256; PSS: SHA-256; EC: ES256; Ed25519) whose header
    /// says `alg` and, when given, `kid`.
    static func token(_ key: Key, alg: String, kid: String? = nil, claims: [String: J] = claims()) async throws
        -> String
    {
        let keys = JWTKeyCollection()
        switch key {
        case .rsa: await keys.add(rsa: rsa, digestAlgorithm: .sha256)
        case .rsaPSS: await keys.add(pss: rsa, digestAlgorithm: .sha256)
        case .ec: await keys.add(ecdsa: ec)
        case .ed: await keys.add(eddsa: ed)
        }
        var header = JWTHeader()
        header.alg = alg
        header.kid = kid
        return try await keys.sign(AnyClaims(claims), header: header)
    }

    static func base64URL(_ data: Data) -> String {
        String(data.base64EncodedString().compactMap { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 == "=" ? nil : $0 })
    }

    static let rsaPEM = """
        -----BEGIN PRIVATE KEY-----
        MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQDoZNBoCB0XX8Wv
        sPZMOpwvjx7NON7rNzKi6TC+xkyNIC4oPixhho5MzDcNF6vhbVVhIFjha5H3ZiyB
        vSQE61/WkKpm5FUtk73mmIHOZDn6DoUtKQIH7OI6z9qO7fcoXXQhap2Yj4NNrQvR
        I9OuanR2GnO990UVJaIzujVZUZHIjETvobykPL0KffjqqOtF5RiOZl+c+yWyPKUD
        kvYPBiLzplvzmByxQVFrfUIQu4kkxrjvlt20I++qDlkm725xq0B/r0REwY9s6Gc6
        CXwJVP/OZBWs8Q2qM5b1Ukb7/Fa/yidyq39aWhbQckJjDAXhD/r+cyfKx1FQZ3DQ
        /6YXoktbAgMBAAECggEAJ5g1oePwAPGCXwLJlAdQYRIDb3fHE1BeQj903KwwksLu
        2lBtg1hHmnIY1xQ3ZrsYFupJ+m43em1gG+K75lKsC4SuY8V3dcJ8UnOdeiq9bgtX
        SXB5Nhx4Fwke9cc5mxkBFkhx/XJGLs/S+ZkfEdJ1cUHkgnNEw+ubjTCmskchjYd1
        gTP6dOoVA8Y8SghuiRVksAg/btxqi0IuaQ+MKXecbWRhjxdmnEFj/Jg/zZTPdVGO
        vM7CHmcdm8WU3SPqicHjSXGQ4MEd3JWmwW8gCy9WfbeBTimPaMt3sqYsBQIdwIjr
        RlJdpGLhCgYl0FZq5IcMzDs0zXctDFW5xkk1wYZRMQKBgQD12mhNcZEy1gKYBNvM
        XUkuH0gjUTtFgULPAJhBsQOTLLU1S0MmHkyFC2ytU/7JgS4BH36+1UIaV2bu/Gv5
        vGteL4L77PDsJlRsLP/uPn6925m6QB6ro5f9hQWT3p27JNzid7v+Cue2IytEjxPY
        RWbjA1AfN0fJ7lBpkueVs0XPFwKBgQDx/DNAf6VOL6N/tH4CrIroy+dz78VYkG0e
        hfvSpzKG28lriqSGm5OhFwPHXQbqato9ydLoDJHdU65qbLVCmP55GEIOPUQVLr7S
        rMsoxR6Tc6OKqWuW10RUMn36EaDByUTyGDLF49EUCPUCWztfBDUxCJJjTgfW54F/
        YN/NBDRwXQKBgBrCK8oKC1CqJFwhYz7qBFYFx5c4dygIepoHKYs01fvFyO9FAsj6
        UT/Fz41J8BhEfBpZMDVbBrfRPX3TcXkb/d+hcjMzRcGeJmAjwbNPkAHgDepMokny
        I0/Pk5zVhPtidrwbZhWvYCrdxw7ON825OAqLSMQtAx5CVvQ2rggIHBf/AoGAEflt
        xSi2GqynNGEvyvsOBmS++Hmi6wUvVckV/3uz4RiKSZauyeDcgma3PSPH07nEJDrN
        k7b7Trlch0Mz45KBtHT80xnx6LDkM7nqDUk3EDTSvQYAm9+5j5eAjAarLjnJCUKK
        4vAdI6PWryofqtshKFc+qGmvY2Mm11NWzF+3lXECgYA7JXRrGHYQofTz4lHC6CIs
        cid7hEJJbJTtU9gzPITHVEC4jgYL7CuzlX3A2zVbAvN3R0/Wtm7NRkgMi4lxxhwo
        8rIYTGBfbIXShejJ2E5RC0ENsGaF3kfz8onTBZMvFvhY4Xtso2lbKiggrqL2KCHQ
        WSSREvrXP1Tt0y0dAlC/TQ==
        -----END PRIVATE KEY-----
        """
}
