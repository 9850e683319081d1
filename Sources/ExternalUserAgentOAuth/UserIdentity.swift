// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentABI
import ExternalUserAgentCore

/// Who signed in, as the provider's UserInfo endpoint says (OpenID Connect Core §5.3), kept with the state when a
/// sign-in brought no ID token (the device grant): the few claims that name a person.
///
/// For display only: unlike an ID token, nothing here is signed.
public struct UserIdentity: Sendable, Hashable, Codable {
    /// `sub`: the provider's identifier of the person, never empty.
    public var subject: String
    /// `name`: the person's full name; `nil` when absent or not a string.
    public var name: String?
    /// `preferred_username`: the name the person goes by; `nil` when absent or not a string.
    public var preferredUsername: String?
    /// `email`: the person's e-mail address; `nil` when absent or not a string.
    public var email: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case subject = "sub"
        case name, email
        case preferredUsername = "preferred_username"
    }

    /// An identity from values at hand (tests); nothing is checked.
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

    /// Who `userInfo` names: its `sub`, and `name`, `preferred_username` and `email` when they are strings.
    public init(_ userInfo: UserInfo) {
        subject = userInfo.subject
        name = userInfo.claims["name"]?.stringValue
        preferredUsername = userInfo.claims["preferred_username"]?.stringValue
        email = userInfo.claims["email"]?.stringValue
    }

    /// Asks `configuration`'s UserInfo endpoint with `accessToken` (``UserInfoEndpoint``, with no ID token to
    /// compare its `sub` with: this is for a sign-in that brought none). Throws what the endpoint throws
    /// (`userInfoFailed`, `userInfoInvalid`), naming the endpoint, never the token.
    public static func fetch(
        configuration: ServiceConfiguration, client: ClientCredentials, accessToken: String,
        http: OAuthHTTP = OAuthHTTP()
    ) async throws -> UserIdentity {
        let endpoint = UserInfoEndpoint(configuration: configuration, client: client, http: http)
        return UserIdentity(try await endpoint.fetch(accessToken: accessToken, expectedSubject: nil))
    }
}
