// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentABI

/// A provider's JSON Web Key Set (RFC 7517 §5), read leniently: a key this client cannot use (another
/// type, a field of the wrong type) stays in the list, so that messages can name it, but never verifies.
struct JSONWebKeySet: Sendable {
    var keys: [JSONWebKey]

    /// Reads a JWK Set; throws ``NotAJWKSet`` when `data` is not a JSON object with a `keys` array.
    init(data: Data) throws {
        guard case .object(let members)? = JSONValue.read(data, hugeNumbers: true),
            case .array(let elements)? = members["keys"]
        else {
            throw NotAJWKSet()
        }
        keys = elements.enumerated().map { JSONWebKey($1, index: $0) }
    }

    /// A body that is not a JSON object with a `keys` array.
    struct NotAJWKSet: Error {}

    /// Why no key was chosen for a signature.
    struct SelectionFailure: Error, Equatable {
        /// What is wrong, as the rest of a sentence about the ID token.
        var reason: String
        /// Whether the provider may have rotated its keys, so that fetching the set again could help.
        var mayBeRotation: Bool
    }

    /// The one key that may verify a signature made with `alg` by key `kid` (OpenID Connect Core §10.1).
    ///
    /// The candidates are the keys with `kid` (when the header names one) whose `use` is `sig` or absent,
    /// whose `key_ops` include `verify` when present, whose `kty` (and curve) fit `alg`, and whose own
    /// `alg`, when present, is `alg`. Exactly one candidate must remain.
    func select(alg: String, kid: String?) -> Result<JSONWebKey, SelectionFailure> {
        let named = kid.map { kid in keys.filter { $0.kid == kid } } ?? keys
        if let kid, named.isEmpty {
            return .failure(
                SelectionFailure(
                    reason:
                        "is signed with key '\(UntrustedText.printable(kid))', which is not in the provider's key set",
                    mayBeRotation: true))
        }
        let candidates = named.filter { $0.refusal(for: alg) == nil }
        switch candidates.count {
        case 1:
            return .success(candidates[0])
        case 0:
            let reasons = named.map { "\($0.label) \($0.refusal(for: alg) ?? "")" }
            return .failure(
                SelectionFailure(
                    reason: "is signed with \(alg), and no key of the provider's key set may verify that: "
                        + (reasons.isEmpty ? "the set is empty" : reasons.joined(separator: "; ")),
                    mayBeRotation: kid == nil))
        default:
            let list = candidates.map(\.label).joined(separator: ", ")
            let reason =
                kid.map {
                    "names key '\(UntrustedText.printable($0))', which \(candidates.count) keys of the set "
                        + "have (\(list))"
                }
                ?? ("names no key (kid), and \(candidates.count) keys of the provider's key set could verify its "
                    + "\(alg) signature (\(list)); a token must name its key when several fit (OpenID Connect Core §10.1)")
            return .failure(SelectionFailure(reason: reason, mayBeRotation: false))
        }
    }
}

/// One key of a JWK Set: the fields that decide what it may verify, and its public parameters.
struct JSONWebKey: Sendable {
    var kty: String?
    var kid: String?
    var use: String?
    var keyOps: [String]?
    var alg: String?
    var crv: String?
    /// RSA modulus and exponent; EC coordinates (base64url).
    var n: String?, e: String?, x: String?, y: String?
    /// Where it stands in the set, for messages.
    var index = 0

    enum CodingKeys: String, CodingKey {
        case kty, kid, use
        case keyOps = "key_ops"
        case alg, crv, n, e, x, y
    }

    /// Never fails: a field of the wrong type is read as absent, and `refusal(for:)` then refuses
    /// the key (an absent `kty` fits no algorithm; a `use` or `key_ops` of the wrong type is not `sig`).
    init(_ value: JSONValue, index: Int) {
        self.index = index
        guard case .object(let members) = value else { return }
        let fields = JSONFields<CodingKeys>(object: members)
        kty = fields.lenientString(.kty)
        kid = fields.lenientString(.kid)
        alg = fields.lenientString(.alg)
        crv = fields.lenientString(.crv)
        (n, e, x, y) = (
            fields.lenientString(.n), fields.lenientString(.e), fields.lenientString(.x), fields.lenientString(.y)
        )
        use = fields.isPresent(.use) ? fields.lenientString(.use) ?? "(not a string)" : nil
        if fields.isPresent(.keyOps) {
            keyOps = fields.lenientStrings(.keyOps) ?? []
        }
    }

    /// `key 'k1' (RSA)` or `key #2 (EC P-256)`.
    var label: String {
        let name = kid.map { "key '\(UntrustedText.printable($0))'" } ?? "key #\(index)"
        return
            "\(name) (\([kty ?? "no kty", crv].compactMap { $0.map(UntrustedText.printable) }.joined(separator: " ")))"
    }

    /// Why this key may not verify an `alg` signature, or `nil` when it may.
    func refusal(for alg: String) -> String? {
        if let use, use != "sig" { return "is for use '\(UntrustedText.printable(use))', not signatures ('sig')" }
        if let keyOps, !keyOps.contains("verify") { return "has key_ops without 'verify'" }
        if let own = self.alg, own != alg { return "is for \(UntrustedText.printable(own)), not \(alg)" }
        guard let family = Self.keyType(for: alg) else { return "cannot verify \(alg)" }
        guard kty == family.kty else {
            return "is a key of type \(kty.map(UntrustedText.printable) ?? "(none)"); \(alg) needs \(family.kty)"
        }
        if let curve = family.crv, crv != curve {
            return "is on curve \(crv.map(UntrustedText.printable) ?? "(none)"); \(alg) needs \(curve)"
        }
        return nil
    }

    /// The `kty` (and EC curve) an algorithm needs (RFC 7518 §3.1).
    static func keyType(for alg: String) -> (kty: String, crv: String?)? {
        switch alg {
        case "RS256", "RS384", "RS512", "PS256", "PS384", "PS512": ("RSA", nil)
        case "ES256": ("EC", "P-256")
        case "ES384": ("EC", "P-384")
        case "ES512": ("EC", "P-521")
        default: nil
        }
    }
}
