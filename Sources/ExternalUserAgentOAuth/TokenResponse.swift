#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A token endpoint's successful answer (RFC 6749 §5.1, OIDC Core §3.1.3.3).
public struct TokenResponse: Sendable, Hashable, Codable {
    public var accessToken: String
    public var tokenType: String
    /// Lifetime of the access token in seconds from `receivedAt`, when the server said.
    public var expiresIn: Int?
    public var refreshToken: String?
    public var idToken: String?
    public var scope: String?
    /// When this client received the response (not part of the server's JSON).
    public var receivedAt: Date

    public init(accessToken: String, tokenType: String = "Bearer", expiresIn: Int? = nil, refreshToken: String? = nil,
                idToken: String? = nil, scope: String? = nil, receivedAt: Date = Date()) {
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

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case refreshToken = "refresh_token"
        case idToken = "id_token"
        case scope
        case receivedAt = "received_at"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        accessToken = try container.decode(String.self, forKey: .accessToken)
        tokenType = try container.decode(String.self, forKey: .tokenType)
        // Some servers send expires_in as a string, or a fraction.
        if let seconds = try? container.decodeIfPresent(Int.self, forKey: .expiresIn) {
            expiresIn = seconds
        } else if let seconds = try? container.decodeIfPresent(Double.self, forKey: .expiresIn) {
            expiresIn = Int(seconds)
        } else if let text = try? container.decodeIfPresent(String.self, forKey: .expiresIn) {
            expiresIn = Int(text)
        } else {
            expiresIn = nil
        }
        refreshToken = try container.decodeIfPresent(String.self, forKey: .refreshToken)
        idToken = try container.decodeIfPresent(String.self, forKey: .idToken)
        scope = try container.decodeIfPresent(String.self, forKey: .scope)
        receivedAt = try container.decodeIfPresent(Date.self, forKey: .receivedAt) ?? Date()
    }
}
