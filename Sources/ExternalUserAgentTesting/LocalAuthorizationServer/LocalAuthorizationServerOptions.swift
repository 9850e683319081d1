/// How a ``LocalAuthorizationServer`` behaves: its client, its signing key, and on purpose, its faults.
public struct LocalAuthorizationServerOptions: Sendable {
    /// The algorithm ID tokens are signed with.
    public enum SigningAlgorithm: String, Sendable, CaseIterable {
        case rs256 = "RS256"
        case es256 = "ES256"
    }

    /// A fault to play, so a client's checks can be tested.
    public enum Misbehavior: String, Sendable, Hashable, CaseIterable {
        /// The authorization response carries another `state`.
        case wrongState
        /// The authorization response's `iss` names another issuer.
        case wrongIssuerInResponse
        /// No `iss` in the authorization response, although the metadata advertises it.
        case missingIssuerInResponse
        /// The metadata names another issuer than the one it is served for.
        case wrongIssuerInMetadata
        /// The authorization endpoint redirects with `error=access_denied`.
        case denyAccess
        /// The ID token's signature is altered after signing.
        case tamperedSignature
        /// The ID token's `aud` is another client.
        case wrongAudience
        /// The ID token's `nonce` is not the request's.
        case wrongNonce
        /// The ID token expired an hour ago.
        case expiredIDToken
        /// The ID token is signed with a key (and `kid`) the JWKS never publishes.
        case unknownKeyID
        /// The token endpoint answers 200 with an HTML page.
        case tokenEndpointHTML
        /// The token endpoint answers 500 with a plain-text body.
        case tokenEndpointServerError
    }

    /// The one registered client.
    public var clientID: String
    /// Its secret; `nil` makes it a public client (`client_id` in the body, no authentication).
    public var clientSecret: String?
    /// The subject (`sub`) every sign-in approves.
    public var subject: String
    public var signingAlgorithm: SigningAlgorithm
    /// Advertise and send `iss` in authorization responses (RFC 9207).
    public var sendsIssuerInResponse: Bool
    /// Access token lifetime, in seconds.
    public var accessTokenLifetime: Int
    public var misbehaviors: Set<Misbehavior>

    public init(clientID: String = "test-client", clientSecret: String? = nil, subject: String = "alice",
                signingAlgorithm: SigningAlgorithm = .rs256, sendsIssuerInResponse: Bool = true,
                accessTokenLifetime: Int = 3600, misbehaviors: Set<Misbehavior> = []) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.subject = subject
        self.signingAlgorithm = signingAlgorithm
        self.sendsIssuerInResponse = sendsIssuerInResponse
        self.accessTokenLifetime = accessTokenLifetime
        self.misbehaviors = misbehaviors
    }
}
