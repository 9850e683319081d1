// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentABI

/// Where an authorization server's endpoints are and what it supports.
///
/// Fetch it with ``Discovery`` (OpenID Connect discovery or RFC 8414 metadata), or build it by hand
/// for a server that publishes no metadata. Only `issuer`, `authorizationEndpoint` and `tokenEndpoint`
/// are required; `jwksURI` is needed to validate ID tokens.
public struct ServiceConfiguration: Sendable, Hashable, Codable {
    /// The issuer identifier, exactly as the server names itself (`https://id.example.com`).
    public var issuer: String
    /// Where the browser is sent to sign in.
    public var authorizationEndpoint: URL
    /// Where codes and refresh tokens are exchanged for tokens.
    public var tokenEndpoint: URL
    /// The JSON Web Key Set that signs ID tokens.
    public var jwksURI: URL?
    /// The OpenID Connect UserInfo endpoint.
    public var userinfoEndpoint: URL?
    /// RFC 9207: the server puts `iss` in every authorization response, so a missing one is an error.
    public var authorizationResponseIssParameterSupported: Bool
    /// PKCE methods the server advertises (informational: this client always sends S256).
    public var codeChallengeMethodsSupported: [String]?
    /// Client authentication methods the token endpoint accepts, when advertised.
    public var tokenEndpointAuthMethodsSupported: [String]?
    /// Signing algorithms the server uses for ID tokens, when advertised.
    public var idTokenSigningAlgValuesSupported: [String]?
    /// RFC 8628: where a device asks for a `device_code` and `user_code`; when present, the device
    /// authorization grant can sign in where no browser can run.
    public var deviceAuthorizationEndpoint: URL?
    /// RFC 7591 / OpenID Connect Registration: where a client registers itself (``ClientRegistrar``).
    public var registrationEndpoint: URL? = nil
    /// OpenID Connect RP-Initiated Logout: where the browser is sent to end the provider's session (``EndSessionRequest``).
    public var endSessionEndpoint: URL? = nil
    /// RFC 7009: where tokens are revoked (``TokenRevocation``).
    public var revocationEndpoint: URL? = nil
    /// Client authentication methods the revocation endpoint accepts, when advertised (informational: the
    /// client authenticates there as at the token endpoint).
    public var revocationEndpointAuthMethodsSupported: [String]? = nil
    /// OpenID Connect Discovery `acr_values_supported`: the authentication context classes the server says it
    /// can meet; a sign-in that asks for one of them checks the ID token's `acr` (``AuthorizationParameters``).
    public var acrValuesSupported: [String]? = nil
    /// RFC 9126: where the client pushes its authorization request; ``SignIn`` then pushes on its own.
    public var pushedAuthorizationRequestEndpoint: URL? = nil
    /// RFC 9126 `require_pushed_authorization_requests`: the server accepts only pushed requests, so a failed
    /// push ends the sign-in.
    public var requirePushedAuthorizationRequests: Bool = false

    /// A configuration built by hand, for a server that publishes no metadata: only the issuer and the
    /// authorization and token endpoints are required. ``registrationEndpoint``, ``endSessionEndpoint`` and
    /// ``revocationEndpoint`` start `nil`: set them after.
    public init(
        issuer: String, authorizationEndpoint: URL, tokenEndpoint: URL, jwksURI: URL? = nil,
        userinfoEndpoint: URL? = nil, authorizationResponseIssParameterSupported: Bool = false,
        codeChallengeMethodsSupported: [String]? = nil, tokenEndpointAuthMethodsSupported: [String]? = nil,
        idTokenSigningAlgValuesSupported: [String]? = nil, deviceAuthorizationEndpoint: URL? = nil
    ) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.jwksURI = jwksURI
        self.userinfoEndpoint = userinfoEndpoint
        self.authorizationResponseIssParameterSupported = authorizationResponseIssParameterSupported
        self.codeChallengeMethodsSupported = codeChallengeMethodsSupported
        self.tokenEndpointAuthMethodsSupported = tokenEndpointAuthMethodsSupported
        self.idTokenSigningAlgValuesSupported = idTokenSigningAlgValuesSupported
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case jwksURI = "jwks_uri"
        case userinfoEndpoint = "userinfo_endpoint"
        case authorizationResponseIssParameterSupported = "authorization_response_iss_parameter_supported"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case idTokenSigningAlgValuesSupported = "id_token_signing_alg_values_supported"
        case deviceAuthorizationEndpoint = "device_authorization_endpoint"
        case registrationEndpoint = "registration_endpoint"
        case endSessionEndpoint = "end_session_endpoint"
        case revocationEndpoint = "revocation_endpoint"
        case revocationEndpointAuthMethodsSupported = "revocation_endpoint_auth_methods_supported"
        case acrValuesSupported = "acr_values_supported"
        case pushedAuthorizationRequestEndpoint = "pushed_authorization_request_endpoint"
        case requirePushedAuthorizationRequests = "require_pushed_authorization_requests"
    }

    public init(from decoder: any Decoder) throws {
        try self.init(fields: JSONFields(decoder))
    }

    /// Reads the metadata with the rules of ``JSONFields``: issuer and the two endpoints required, the rest
    /// checked when present, the optional extras read leniently.
    init(fields: JSONFields<CodingKeys>) throws {
        issuer = try fields.string(.issuer)
        authorizationEndpoint = try fields.url(.authorizationEndpoint)
        tokenEndpoint = try fields.url(.tokenEndpoint)
        jwksURI = try fields.optionalURL(.jwksURI)
        userinfoEndpoint = try fields.optionalURL(.userinfoEndpoint)
        authorizationResponseIssParameterSupported =
            try fields.optionalBool(.authorizationResponseIssParameterSupported) ?? false
        codeChallengeMethodsSupported = try fields.optionalStrings(.codeChallengeMethodsSupported)
        tokenEndpointAuthMethodsSupported = try fields.optionalStrings(.tokenEndpointAuthMethodsSupported)
        idTokenSigningAlgValuesSupported = try fields.optionalStrings(.idTokenSigningAlgValuesSupported)
        // A value that is not a URL is treated as absent: the grant is an option, not a requirement.
        deviceAuthorizationEndpoint = fields.lenientURL(.deviceAuthorizationEndpoint)
        registrationEndpoint = fields.lenientURL(.registrationEndpoint)
        // Sign-out endpoints: only http(s) URLs count; anything else is treated as absent, and sign-out says so.
        endSessionEndpoint = Self.webURL(fields.lenientURL(.endSessionEndpoint))
        revocationEndpoint = Self.webURL(fields.lenientURL(.revocationEndpoint))
        revocationEndpointAuthMethodsSupported = fields.lenientStrings(.revocationEndpointAuthMethodsSupported)
        // Not a list of strings: treated as absent, so no acr is checked (the request is then voluntary).
        acrValuesSupported = fields.lenientStrings(.acrValuesSupported)
        // Not an http(s) URL: treated as absent, so a server that requires pushing then fails the sign-in with a
        // clear error.
        pushedAuthorizationRequestEndpoint = Self.webURL(fields.lenientURL(.pushedAuthorizationRequestEndpoint))
        requirePushedAuthorizationRequests = fields.lenientBool(.requirePushedAuthorizationRequests) ?? false
    }

    /// `url` when it is an http or https URL with a host, else `nil`.
    private static func webURL(_ url: URL?) -> URL? {
        guard let url, let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
            url.host?.isEmpty == false
        else { return nil }
        return url
    }
}
