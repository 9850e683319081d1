// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentABI
import ExternalUserAgentCore

/// Who the client is to the authorization server, and how it proves it at the token endpoint.
public struct ClientCredentials: Sendable, Hashable, Codable {
    /// How the client authenticates at the token endpoint (RFC 6749 §2.3, OIDC Core §9).
    public enum AuthenticationMethod: String, Sendable, Hashable, Codable, CaseIterable {
        /// A public client: `client_id` in the body, no secret (a native app's usual case).
        case none
        /// HTTP Basic with the form-encoded id and secret.
        case clientSecretBasic = "client_secret_basic"
        /// `client_id` and `client_secret` in the body.
        case clientSecretPost = "client_secret_post"
        /// A JWT signed with the client secret (HS256) in the body (RFC 7523 §2.2, OpenID Connect Core §9).
        case clientSecretJWT = "client_secret_jwt"
        /// A JWT signed with the client's private key (``ClientCredentials/signingKey``) in the body.
        case privateKeyJWT = "private_key_jwt"
    }

    /// The client identifier the provider issued (`client_id`).
    public var clientID: String
    /// The client secret, if the client has one. Never logged, never saved with the state.
    public var clientSecret: String?
    /// How the client authenticates at the token endpoint; when not given, from whether there is a secret
    /// (``init(clientID:clientSecret:authenticationMethod:)``).
    public var authenticationMethod: AuthenticationMethod
    /// The algorithm registered for the client's ID tokens (`id_token_signed_response_alg`); `nil`: the
    /// default, any asymmetric one (see ``IDTokenAlgorithm``). Saved with the state, so a refresh checks the same.
    public var idTokenAlgorithm: IDTokenAlgorithm?
    /// The client's private key, for `private_key_jwt` and request objects. Never saved with the state.
    public var signingKey: ClientSigningKey?
    /// Send each authorization request as a request object signed with ``signingKey`` (RFC 9101). Not saved.
    public var signsRequestObjects = false
    /// Whether ``authenticationMethod`` was given (or read from a saved state) rather than defaulted:
    /// only a defaulted one is chosen again from the server's metadata (``negotiated(with:)``).
    public private(set) var authenticationMethodIsExplicit: Bool

    /// Whether the client authenticates with a secret (a confidential client, RFC 6749 §2.1).
    public var isConfidential: Bool { authenticationMethod != .none }

    /// Whether the method needs the client secret (`client_secret_basic`, `_post`, `_jwt`); `private_key_jwt`
    /// needs the client's key instead.
    public var usesSecret: Bool {
        [.clientSecretBasic, .clientSecretPost, .clientSecretJWT].contains(authenticationMethod)
    }

    /// A client; with a secret and no method, `client_secret_basic` is used (until ``negotiated(with:)``
    /// picks what the server supports), without a secret `none`.
    public init(clientID: String, clientSecret: String? = nil, authenticationMethod: AuthenticationMethod? = nil) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.authenticationMethod = authenticationMethod ?? (clientSecret == nil ? .none : .clientSecretBasic)
        authenticationMethodIsExplicit = authenticationMethod != nil
    }

    /// This client with the method the server's `token_endpoint_auth_methods_supported` allows, for a client
    /// with a secret and no explicit method: `client_secret_basic` when listed (or when the server lists
    /// nothing: RFC 8414 §2's default), else `client_secret_post`. Throws `invalidOptions` when the server
    /// lists neither, saying what it lists.
    public func negotiated(with configuration: ServiceConfiguration) throws -> ClientCredentials {
        guard clientSecret != nil, !authenticationMethodIsExplicit else { return self }
        let listed =
            configuration.tokenEndpointAuthMethodsSupported ?? [AuthenticationMethod.clientSecretBasic.rawValue]
        var chosen = self
        if listed.contains(AuthenticationMethod.clientSecretBasic.rawValue) {
            chosen.authenticationMethod = .clientSecretBasic
        } else if listed.contains(AuthenticationMethod.clientSecretPost.rawValue) {
            chosen.authenticationMethod = .clientSecretPost
        } else {
            let names = listed.map(UntrustedText.printable).joined(separator: ", ")
            throw ExternalUserAgentError(
                .invalidOptions,
                "the server \(configuration.issuer) lists token_endpoint_auth_methods_supported [\(names)] in its "
                    + "metadata: neither client_secret_basic nor client_secret_post, the two ways this client sends a "
                    + "secret; register the client as public (no secret), or with one of those two")
        }
        return chosen
    }

    /// The secret to send: `invalidOptions` for a confidential client without one (never an empty secret).
    func requiredSecret() throws -> String {
        guard let clientSecret, !clientSecret.isEmpty else {
            throw ExternalUserAgentError(
                .invalidOptions,
                "client '\(clientID)' is a confidential client (\(authenticationMethod.rawValue)), and no client secret "
                    + "was given: the secret is never saved, so it is needed each time; give it (in code: "
                    + "ClientCredentials.clientSecret)", remedies: [.giveClientSecret])
        }
        return clientSecret
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case clientID = "client_id"
        case authenticationMethod = "token_endpoint_auth_method"
        case idTokenAlgorithm = "id_token_signed_response_alg"
        case confidential
    }

    /// Decodes the id and method only: the secret is never persisted.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        clientID = try container.decode(String.self, forKey: .clientID)
        authenticationMethod = try container.decode(AuthenticationMethod.self, forKey: .authenticationMethod)
        idTokenAlgorithm = try container.decodeIfPresent(IDTokenAlgorithm.self, forKey: .idTokenAlgorithm)
        authenticationMethodIsExplicit = true
        clientSecret = nil
    }

    /// Writes the id, the method and whether the client is confidential; never the secret.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(clientID, forKey: .clientID)
        try container.encode(authenticationMethod, forKey: .authenticationMethod)
        try container.encodeIfPresent(idTokenAlgorithm, forKey: .idTokenAlgorithm)
        try container.encode(isConfidential, forKey: .confidential)
    }
}
