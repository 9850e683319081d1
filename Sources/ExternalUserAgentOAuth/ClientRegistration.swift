// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore

/// A client the provider registered (RFC 7591 §3.2.1): what ``ClientRegistrar`` returns and
/// ``ClientRegistrationFile`` keeps. ``clientSecret`` and ``registrationAccessToken`` are secrets: never
/// printed or logged (``description`` leaves them out).
public struct ClientRegistration: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The issuer the client is registered with.
    public var issuer: String
    /// The client identifier the provider issued (`client_id`).
    public var clientID: String
    /// The client secret (`client_secret`), for a confidential client; a secret, never printed or logged.
    public var clientSecret: String?
    /// When the secret expires; `nil`: never.
    public var clientSecretExpiresAt: Date?
    /// For reading or changing the registration later (RFC 7592).
    public var registrationAccessToken: String?
    /// Where to read or change the registration with ``registrationAccessToken`` (RFC 7592), when the provider says.
    public var registrationClientURI: URL?
    /// The redirect URIs the provider registered (`redirect_uris`).
    public var redirectURIs: [URL]
    /// How the client authenticates at the token endpoint (`token_endpoint_auth_method`); `client_secret_basic`
    /// when the provider did not say (RFC 7591 §2's default).
    public var tokenEndpointAuthMethod: ClientCredentials.AuthenticationMethod
    /// The algorithm the provider signs the client's ID tokens with (`id_token_signed_response_alg`); `nil`: not
    /// said, so any asymmetric one is accepted.
    public var idTokenAlgorithm: IDTokenAlgorithm?

    /// A registration from values at hand (tests, a client registered by hand); nothing is checked.
    public init(
        issuer: String, clientID: String, clientSecret: String? = nil, clientSecretExpiresAt: Date? = nil,
        registrationAccessToken: String? = nil, registrationClientURI: URL? = nil, redirectURIs: [URL],
        tokenEndpointAuthMethod: ClientCredentials.AuthenticationMethod, idTokenAlgorithm: IDTokenAlgorithm? = nil
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.clientSecretExpiresAt = clientSecretExpiresAt
        self.registrationAccessToken = registrationAccessToken
        self.registrationClientURI = registrationClientURI
        self.redirectURIs = redirectURIs
        self.tokenEndpointAuthMethod = tokenEndpointAuthMethod
        self.idTokenAlgorithm = idTokenAlgorithm
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case issuer
        case clientID = "client_id"
        case clientSecret = "client_secret"
        case clientSecretExpiresAt = "client_secret_expires_at"
        case registrationAccessToken = "registration_access_token"
        case registrationClientURI = "registration_client_uri"
        case redirectURIs = "redirect_uris"
        case tokenEndpointAuthMethod = "token_endpoint_auth_method"
        case idTokenAlgorithm = "id_token_signed_response_alg"
    }

    /// Reads a saved registration; a member of the wrong type is an ``InvalidFieldError`` naming it.
    public init(from decoder: any Decoder) throws {
        let fields = try JSONFields<CodingKeys>(decoder)
        issuer = try fields.string(.issuer)
        clientID = try fields.string(.clientID)
        clientSecret = try fields.optionalString(.clientSecret)
        let expiry = try fields.numericDate(.clientSecretExpiresAt)
        clientSecretExpiresAt = expiry?.timeIntervalSince1970 == 0 ? nil : expiry
        registrationAccessToken = try fields.optionalString(.registrationAccessToken)
        registrationClientURI = try fields.optionalString(.registrationClientURI).flatMap(URL.init(string:))
        redirectURIs = try fields.strings(.redirectURIs).map { text in
            guard let url = URL(string: text) else {
                throw InvalidFieldError(
                    field: "redirect_uris", problem: "holds \(UntrustedText.quoted(text)), not a URI")
            }
            return url
        }
        let method = try fields.optionalString(.tokenEndpointAuthMethod) ?? "client_secret_basic"
        guard let known = ClientCredentials.AuthenticationMethod(rawValue: method) else {
            throw InvalidFieldError(
                field: "token_endpoint_auth_method",
                problem: "is \(UntrustedText.quoted(method)), a method this client does not know")
        }
        tokenEndpointAuthMethod = known
        idTokenAlgorithm = try fields.container?.decodeIfPresent(IDTokenAlgorithm.self, forKey: .idTokenAlgorithm)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(issuer, forKey: .issuer)
        try container.encode(clientID, forKey: .clientID)
        try container.encodeIfPresent(clientSecret, forKey: .clientSecret)
        try container.encodeIfPresent(
            clientSecretExpiresAt.map { $0.timeIntervalSince1970.rounded(.down) },
            forKey: .clientSecretExpiresAt)
        try container.encodeIfPresent(registrationAccessToken, forKey: .registrationAccessToken)
        try container.encodeIfPresent(registrationClientURI, forKey: .registrationClientURI)
        try container.encode(redirectURIs.map(\.absoluteString), forKey: .redirectURIs)
        try container.encode(tokenEndpointAuthMethod, forKey: .tokenEndpointAuthMethod)
        try container.encodeIfPresent(idTokenAlgorithm, forKey: .idTokenAlgorithm)
    }

    /// The credentials to sign in with: id, secret, method and ID token algorithm.
    public var credentials: ClientCredentials {
        var client = ClientCredentials(
            clientID: clientID, clientSecret: clientSecret,
            authenticationMethod: tokenEndpointAuthMethod)
        client.idTokenAlgorithm = idTokenAlgorithm
        return client
    }

    /// The client id and issuer, never a secret.
    public var description: String { "client '\(clientID)' at \(issuer)" }
}
