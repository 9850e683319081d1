#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The claims of an OpenID Connect ID token (OIDC Core §2), as this client reads them.
///
/// Only a token that passed ``IDTokenValidator`` should be trusted; ``IDToken/unverifiedClaims(of:)``
/// is for display and diagnostics.
public struct IDTokenClaims: Sendable, Hashable, Codable {
    public var issuer: String
    public var subject: String
    public var audience: [String]
    public var expiration: Date
    public var issuedAt: Date
    public var nonce: String?
    public var authorizedParty: String?
    public var authTime: Date?
    public var name: String?
    public var email: String?
    public var preferredUsername: String?

    enum CodingKeys: String, CodingKey {
        case issuer = "iss", subject = "sub", audience = "aud", expiration = "exp", issuedAt = "iat"
        case nonce, authorizedParty = "azp", authTime = "auth_time", name, email
        case preferredUsername = "preferred_username"
    }

    public init(issuer: String, subject: String, audience: [String], expiration: Date, issuedAt: Date,
                nonce: String? = nil, authorizedParty: String? = nil, authTime: Date? = nil, name: String? = nil,
                email: String? = nil, preferredUsername: String? = nil) {
        self.issuer = issuer
        self.subject = subject
        self.audience = audience
        self.expiration = expiration
        self.issuedAt = issuedAt
        self.nonce = nonce
        self.authorizedParty = authorizedParty
        self.authTime = authTime
        self.name = name
        self.email = email
        self.preferredUsername = preferredUsername
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        issuer = try container.decode(String.self, forKey: .issuer)
        subject = try container.decode(String.self, forKey: .subject)
        if let single = try? container.decode(String.self, forKey: .audience) {
            audience = [single]
        } else {
            audience = try container.decode([String].self, forKey: .audience)
        }
        expiration = Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .expiration))
        issuedAt = Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .issuedAt))
        nonce = try container.decodeIfPresent(String.self, forKey: .nonce)
        authorizedParty = try container.decodeIfPresent(String.self, forKey: .authorizedParty)
        authTime = try container.decodeIfPresent(Double.self, forKey: .authTime).map(Date.init(timeIntervalSince1970:))
        name = try? container.decodeIfPresent(String.self, forKey: .name)
        email = try? container.decodeIfPresent(String.self, forKey: .email)
        preferredUsername = try? container.decodeIfPresent(String.self, forKey: .preferredUsername)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(issuer, forKey: .issuer)
        try container.encode(subject, forKey: .subject)
        if audience.count == 1 { try container.encode(audience[0], forKey: .audience) }
        else { try container.encode(audience, forKey: .audience) }
        try container.encode(Int(expiration.timeIntervalSince1970), forKey: .expiration)
        try container.encode(Int(issuedAt.timeIntervalSince1970), forKey: .issuedAt)
        try container.encodeIfPresent(nonce, forKey: .nonce)
        try container.encodeIfPresent(authorizedParty, forKey: .authorizedParty)
        try container.encodeIfPresent(authTime.map { Int($0.timeIntervalSince1970) }, forKey: .authTime)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encodeIfPresent(email, forKey: .email)
        try container.encodeIfPresent(preferredUsername, forKey: .preferredUsername)
    }

    /// The person's most readable name: `preferred_username`, `name`, `email`, then `sub`.
    public var displayName: String { preferredUsername ?? name ?? email ?? subject }
}

/// The JOSE header fields this client looks at.
struct JOSEHeader: Decodable {
    var alg: String
    var kid: String?
}

/// An ID token split into its three parts, nothing checked yet.
struct CompactJWT {
    var header: JOSEHeader
    var payload: Data

    init?(_ token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(parts[0]), let payload = Base64URL.decode(parts[1]),
              let header = try? JSONDecoder().decode(JOSEHeader.self, from: headerData) else { return nil }
        self.header = header
        self.payload = payload
    }
}

extension IDTokenClaims {
    /// Reads the claims of `token` WITHOUT checking anything; `nil` when it is not a JWT.
    public static func unverified(_ token: String) -> IDTokenClaims? {
        guard let jwt = CompactJWT(token) else { return nil }
        return try? JSONDecoder().decode(IDTokenClaims.self, from: jwt.payload)
    }
}
