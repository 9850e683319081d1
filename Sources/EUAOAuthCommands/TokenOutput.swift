// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentABI
import ExternalUserAgentOAuth

/// What `--json` prints: the token response, plus who signed in and where the state is (one line, keys sorted).
struct TokenOutput: Encodable {
    var access_token: String
    var token_type: String
    var expires_in: Int?
    var refresh_token: String?
    var id_token: String?
    var scope: String?
    var issuer: String
    var subject: String?
    var name: String?
    var preferred_username: String?
    var email: String?
    /// Where who signed in comes from: `id_token`, `userinfo`, or absent when unknown.
    var identity_source: String?
    /// `none`, `client_secret_basic` or `client_secret_post`.
    var client_auth: String
    var state_file: String
    /// Requests to the redirect URI that were turned away while the sign-in waited (login only).
    var refused_callbacks: Int?
    /// Whether the authorization request was pushed (RFC 9126; login only).
    var par: Bool?
    /// Whether the tokens are DPoP-bound (RFC 9449: `token_type` `DPoP`).
    var dpop: Bool
    /// Every claim of the validated ID token but the per-request ones (``IDTokenClaims/displayableClaims``).
    var claims: [String: JSONValue]?

    init(
        tokens: TokenResponse, claims: IDTokenClaims?, identity: UserIdentity?, client: ClientCredentials,
        issuer: String,
        stateFile: String, refusedCallbacks: Int? = nil, pushed: Bool? = nil
    ) {
        access_token = tokens.accessToken
        token_type = tokens.tokenType
        expires_in = tokens.expiresIn
        refresh_token = tokens.refreshToken
        id_token = tokens.idToken
        scope = tokens.scope
        self.issuer = issuer
        subject = claims?.subject ?? identity?.subject
        name = claims?.name ?? (claims == nil ? identity?.name : nil)
        preferred_username = claims?.preferredUsername ?? (claims == nil ? identity?.preferredUsername : nil)
        email = claims?.email ?? (claims == nil ? identity?.email : nil)
        identity_source = claims != nil ? "id_token" : identity != nil ? "userinfo" : nil
        client_auth = client.authenticationMethod.rawValue
        state_file = stateFile
        refused_callbacks = refusedCallbacks
        par = pushed
        dpop = tokens.tokenType.lowercased() == "dpop"
        self.claims = claims?.displayableClaims
    }

    /// The output as one line of JSON, keys sorted; a member without a value is left out.
    func jsonText() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
