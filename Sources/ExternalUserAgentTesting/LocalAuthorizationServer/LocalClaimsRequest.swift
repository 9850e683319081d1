// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentABI

extension LocalAuthorizationServer {
    /// The claims a `claims` parameter asks for in the ID token (its `id_token` member's names).
    static func requestedIDTokenClaims(_ parameter: String?) -> [String] {
        guard let parameter,
            case .object(let members)? = try? JSONDecoder().decode(JSONValue.self, from: Data(parameter.utf8)),
            case .object(let claims)? = members["id_token"]
        else { return [] }
        return claims.keys.sorted()
    }

    /// `options` with the requested claims this server knows (`email_verified`, `name`, `auth_time`) put in
    /// the ID token, unless a test overrides them.
    static func adding(_ claims: [String], subject: String, to options: LocalAuthorizationServerOptions)
        -> LocalAuthorizationServerOptions
    {
        var options = options
        let known = [
            "email_verified": "true", "name": "\"\(subject.capitalized)\"",
            "auth_time": String(Int(Date().timeIntervalSince1970)),
        ]
        for claim in claims where options.idTokenClaimOverrides[claim] == nil {
            options.idTokenClaimOverrides[claim] = known[claim]
        }
        return options
    }
}
