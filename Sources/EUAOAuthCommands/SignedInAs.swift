// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentOAuth

/// How `eua login` and `eua refresh` name who signed in: from the ID token's claims, else from UserInfo.
enum SignedInAs {
    /// `Alice Example (alice)`, `alice`, `alice@example.com`, `subject 1` — or `nil` when nothing says who.
    /// Never a token.
    static func name(claims: IDTokenClaims?, identity: UserIdentity?) -> String? {
        let fields: (name: String?, username: String?, email: String?, subject: String)
        if let claims {
            fields = (claims.name, claims.preferredUsername, claims.email, claims.subject)
        } else if let identity {
            fields = (identity.name, identity.preferredUsername, identity.email, identity.subject)
        } else {
            return nil
        }
        let name = fields.name.flatMap { $0.isEmpty ? nil : $0 }
        let handle = [fields.username, fields.email].compactMap { $0 }.first { !$0.isEmpty }
        switch (name, handle) {
        case (let name?, let handle?): return "\(name) (\(handle))"
        case (let name?, nil): return name
        case (nil, let handle?): return handle
        case (nil, nil): return "subject \(fields.subject)"
        }
    }

    /// The sentence for plain output: `Signed in as Alice Example (alice) at https://id.example.com.`
    static func sentence(claims: IDTokenClaims?, identity: UserIdentity?, issuer: String) -> String {
        guard let who = name(claims: claims, identity: identity) else {
            return "Signed in at \(issuer); who signed in is unknown: the server sent no ID token (the device grant "
                + "has none) and no identity from a userinfo endpoint."
        }
        return "Signed in as \(who) at \(issuer)."
    }
}
