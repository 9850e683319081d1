// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentRules
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore

/// An authorization code request (RFC 6749 §4.1.1), secure by default.
///
/// Always PKCE S256 with a fresh verifier, a `state` of 256 random bits, and a `nonce` whenever
/// `openid` is in the scope. Extra parameters (`prompt`, `login_hint`, `acr_values`, `resource`…)
/// are added, but can never replace the parameters this type sets itself.
public struct AuthorizationRequest: Sendable, Hashable {
    /// The parameters this type owns; an extra parameter with one of these names is refused.
    public static let reservedParameters: Set<String> = [
        "response_type", "client_id", "redirect_uri", "scope", "state", "nonce",
        "code_challenge", "code_challenge_method",
    ]

    /// The server whose authorization endpoint the request goes to.
    public let configuration: ServiceConfiguration
    /// The `client_id` parameter: the client the provider registered.
    public let clientID: String
    /// The scopes asked for, sent space-separated as `scope` (left out when empty); `openid` adds a ``nonce``.
    public let scopes: [String]
    /// The `redirect_uri` parameter: where the server sends the person back; the code exchange sends it again.
    public let redirectURI: URL
    /// The `state` parameter: at least 256 random bits in URL-safe characters, unless given. The response must carry it
    /// back unchanged (``AuthorizationResponse/init(callbackURL:request:)``).
    public let state: String
    /// Set when `scopes` contains `openid`.
    public let nonce: String?
    /// The PKCE pair (S256): the challenge goes in the URL, the verifier only to the token endpoint.
    public let pkce: PKCE
    /// Extra parameters, in order.
    public let additionalParameters: [(name: String, value: String)]

    /// A request for `scopes`, to come back to `redirectURI`.
    ///
    /// `state`, `nonce` and `pkce` are made fresh unless given (give them only to replay a known flow).
    /// Throws `invalidOptions` when an extra parameter names one of ``reservedParameters``.
    public init(
        configuration: ServiceConfiguration, clientID: String, scopes: [String], redirectURI: URL,
        additionalParameters: [(name: String, value: String)] = [],
        state: String? = nil, nonce: String? = nil, pkce: PKCE? = nil
    ) throws {
        if let clash = additionalParameters.first(where: { Self.reservedParameters.contains($0.name) }) {
            throw ExternalUserAgentError(
                .invalidOptions,
                "the extra authorization parameter '\(clash.name)' would replace one the client sets itself; remove it")
        }
        self.configuration = configuration
        self.clientID = clientID
        self.scopes = scopes
        self.redirectURI = redirectURI
        self.state = state ?? SecureRandom.token(bits: 256)
        self.nonce = scopes.contains("openid") ? (nonce ?? SecureRandom.token(bits: 256)) : nil
        self.pkce = pkce ?? PKCE()
        self.additionalParameters = additionalParameters
    }

    /// The URL to open in the user agent: the authorization endpoint with this request's parameters.
    public var url: URL {
        var components = URLComponents(url: configuration.authorizationEndpoint, resolvingAgainstBaseURL: false)!
        var items = components.queryItems ?? []
        items.removeAll { Self.reservedParameters.contains($0.name) }
        items.append(URLQueryItem(name: "response_type", value: "code"))
        items.append(URLQueryItem(name: "client_id", value: clientID))
        items.append(URLQueryItem(name: "redirect_uri", value: redirectURI.absoluteString))
        if !scopes.isEmpty { items.append(URLQueryItem(name: "scope", value: scopes.joined(separator: " "))) }
        items.append(URLQueryItem(name: "state", value: state))
        if let nonce { items.append(URLQueryItem(name: "nonce", value: nonce)) }
        items.append(URLQueryItem(name: "code_challenge", value: pkce.codeChallenge))
        items.append(URLQueryItem(name: "code_challenge_method", value: pkce.codeChallengeMethod))
        items += additionalParameters.map { URLQueryItem(name: $0.name, value: $0.value) }
        components.percentEncodedQuery =
            items
            .map { FormCoding.escape($0.name) + "=" + FormCoding.escape($0.value ?? "") }
            .joined(separator: "&")
        return components.url!
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.url == rhs.url && lhs.pkce == rhs.pkce
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(url)
    }
}
