// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentABI

/// A token endpoint's successful answer (RFC 6749 §5.1, OIDC Core §3.1.3.3).
///
/// `Codable` as the server's JSON: decoding never reads a time from it — ``receivedAt`` is the moment
/// of decoding, and a `received_at` the server sends is ignored (the state file keeps this client's
/// own time beside the response). Decoding throws ``InvalidFieldError`` for a field of the wrong type
/// and for an `expires_in` outside 0…``maximumLifetime``.
public struct TokenResponse: Sendable, Hashable, Codable {
    /// The longest `expires_in` accepted: ten years, in seconds.
    public static let maximumLifetime = 315_360_000

    /// `access_token`: the token for the resource server; never logged or printed.
    public var accessToken: String
    /// `token_type`, as the server spells it (`Bearer`, `bearer`…); not checked.
    public var tokenType: String
    /// Lifetime of the access token in seconds from `receivedAt`, when the server said.
    public var expiresIn: Int?
    /// `refresh_token`, when the server issued one; never logged or printed.
    public var refreshToken: String?
    /// `id_token`: the ID token as sent (a compact JWT), not checked here: ``IDTokenValidator`` checks it.
    public var idToken: String?
    /// `scope`: the scopes granted, space-separated, when the server said (absent: as asked, RFC 6749 §5.1).
    public var scope: String?
    /// When this client received the response (this client's clock, never the server's JSON).
    public var receivedAt: Date

    /// A response from values at hand (tests, a saved state); type `Bearer` and received now unless given.
    public init(
        accessToken: String, tokenType: String = "Bearer", expiresIn: Int? = nil, refreshToken: String? = nil,
        idToken: String? = nil, scope: String? = nil, receivedAt: Date = Date()
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.scope = scope
        self.receivedAt = receivedAt
    }

    /// When the access token expires, when the server gave a lifetime.
    public var accessTokenExpirationDate: Date? {
        expiresIn.map { receivedAt.addingTimeInterval(TimeInterval($0)) }
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case refreshToken = "refresh_token"
        case idToken = "id_token"
        case scope
    }

    public init(from decoder: any Decoder) throws {
        try self.init(fields: JSONFields(decoder))
    }

    /// Reads a token response with the rules of ``JSONFields``.
    init(fields: JSONFields<CodingKeys>) throws {
        accessToken = try fields.string(.accessToken)
        tokenType = try fields.string(.tokenType)
        // Some servers send expires_in as a string, or a fraction.
        expiresIn = try fields.seconds(.expiresIn, in: 0...Self.maximumLifetime)
        refreshToken = try fields.optionalString(.refreshToken)
        idToken = try fields.optionalString(.idToken)
        scope = try fields.optionalString(.scope)
        receivedAt = Date()
    }
}
