#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgent

/// Who signed in, as the provider's UserInfo endpoint says (OpenID Connect Core §5.3): asked with the access
/// token as a Bearer token (RFC 6750 §2.1) when a sign-in brought no ID token (the device grant).
///
/// For display only: unlike an ID token, nothing here is signed.
public struct UserInfo: Sendable, Hashable, Codable {
    public var subject: String
    public var name: String?
    public var preferredUsername: String?
    public var email: String?

    enum CodingKeys: String, CodingKey {
        case subject = "sub", name, email
        case preferredUsername = "preferred_username"
    }

    public init(subject: String, name: String? = nil, preferredUsername: String? = nil, email: String? = nil) {
        self.subject = subject
        self.name = name
        self.preferredUsername = preferredUsername
        self.email = email
    }

    /// `sub` is required and must be a non-empty string; the other claims are left out when not strings.
    public init(from decoder: any Decoder) throws {
        let fields = try JSONFields<CodingKeys>(decoder)
        subject = try fields.string(.subject)
        guard !subject.isEmpty else { throw InvalidFieldError(field: "sub", problem: "is empty") }
        name = fields.lenientString(.name)
        preferredUsername = fields.lenientString(.preferredUsername)
        email = fields.lenientString(.email)
    }

    /// Asks `configuration`'s `userinfo_endpoint` with `accessToken`. Throws `tokenRequestFailed` naming the
    /// endpoint's server (never the token) when there is none, it cannot be reached, refuses, or answers
    /// something that is not a UserInfo response (a signed JWT answer is not read).
    public static func fetch(configuration: ServiceConfiguration, accessToken: String,
                             http: OAuthHTTP = OAuthHTTP()) async throws -> UserInfo {
        guard let endpoint = configuration.userinfoEndpoint else {
            throw ExternalUserAgentError(.tokenRequestFailed,
                "the provider \(configuration.issuer) advertises no userinfo_endpoint")
        }
        let place = "the userinfo endpoint \(endpoint.absoluteString)"
        let response: OAuthHTTP.Response
        do {
            response = try await http.get(endpoint, authorization: "Bearer " + accessToken)
        } catch {
            throw ExternalUserAgentError(.tokenRequestFailed, "\(place) could not be reached: \(error)", underlying: error)
        }
        guard response.status == 200 else {
            throw ExternalUserAgentError(.tokenRequestFailed,
                "\(place) answered HTTP \(response.status); check that the access token has the 'openid' scope")
        }
        guard response.contentType?.lowercased().contains("json") ?? false else {
            throw ExternalUserAgentError(.tokenRequestFailed,
                "\(place) answered with \(response.contentType.map(UntrustedText.quoted) ?? "no content type"), not JSON")
        }
        do {
            return try JSONDecoder().decode(UserInfo.self, from: response.body)
        } catch let error as InvalidFieldError {
            throw ExternalUserAgentError(.tokenRequestFailed, "\(place) answered with a response whose \(error)",
                                         underlying: error)
        } catch {
            throw ExternalUserAgentError(.tokenRequestFailed, "\(place) answered with JSON that is not a UserInfo object")
        }
    }
}
