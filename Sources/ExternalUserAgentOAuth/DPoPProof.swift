// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import ExternalUserAgentCore

/// A DPoP proof JWT (RFC 9449 §4.2) for one HTTP request: header `typ` `dpop+jwt`, `alg` `ES256` and the public
/// `jwk`; claims `jti` (fresh), `htm`, `htu` (the URL without query and fragment), `iat`, and `nonce` and `ath`
/// when given.
enum DPoPProof {
    /// The proof for `method` on `url`, signed with `key`; `accessToken` adds `ath` (a resource request).
    static func make(
        key: DPoPKey, method: String, url: URL, nonce: String? = nil, accessToken: String? = nil,
        now: Date = Date()
    ) throws -> String {
        let header: JSONValue = .object([
            "typ": .string("dpop+jwt"), "alg": .string("ES256"), "jwk": .object(key.publicJWK),
        ])
        var claims: [String: JSONValue] = [
            "jti": .string(SecureRandom.token(bits: 128)), "htm": .string(method), "htu": .string(htu(url)),
            "iat": .number(now.timeIntervalSince1970.rounded(.down)),
        ]
        if let nonce { claims["nonce"] = .string(nonce) }
        if let accessToken {
            claims["ath"] = .string(Base64URL.encode(Data(SHA256.hash(data: Data(accessToken.utf8)))))
        }
        let input =
            Base64URL.encode(Data(header.jsonText.utf8)) + "."
            + Base64URL.encode(Data(JSONValue.object(claims).jsonText.utf8))
        return input + "." + Base64URL.encode(try key.sign(Data(input.utf8)))
    }

    /// `url` without its query and fragment (RFC 9449 §4.2, `htu`).
    static func htu(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return url.absoluteString
        }
        components.query = nil
        components.fragment = nil
        return components.string ?? url.absoluteString
    }
}
