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

    public var clientID: String
    /// The client secret, if the client has one. Never logged, never saved with the state.
    public var clientSecret: String?
    public var authenticationMethod: AuthenticationMethod
    /// The algorithm registered for the client's ID tokens (`id_token_signed_response_alg`); `nil`: the
    /// default, any asymmetric one (see ``IDTokenAlgorithm``). Saved with the state, so a refresh checks the same.
    public var idTokenAlgorithm: IDTokenAlgorithm?
    /// The client's private key, for `private_key_jwt` and request objects. Never saved with the state.
    public var signingKey: ClientSigningKey?
    /// Send each authorization request as a request object signed with ``signingKey`` (RFC 9101). Not saved.
    public var signsRequestObjects = false

    /// A client; with a secret and no method, `client_secret_basic` is used, without a secret `none`.
    public init(clientID: String, clientSecret: String? = nil, authenticationMethod: AuthenticationMethod? = nil) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.authenticationMethod = authenticationMethod ?? (clientSecret == nil ? .none : .clientSecretBasic)
    }

    enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case authenticationMethod = "token_endpoint_auth_method"
        case idTokenAlgorithm = "id_token_signed_response_alg"
    }

    /// Decodes the id and method only: the secret is never persisted.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        clientID = try container.decode(String.self, forKey: .clientID)
        authenticationMethod = try container.decode(AuthenticationMethod.self, forKey: .authenticationMethod)
        idTokenAlgorithm = try container.decodeIfPresent(IDTokenAlgorithm.self, forKey: .idTokenAlgorithm)
        clientSecret = nil
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(clientID, forKey: .clientID)
        try container.encode(authenticationMethod, forKey: .authenticationMethod)
        try container.encodeIfPresent(idTokenAlgorithm, forKey: .idTokenAlgorithm)
    }
}
