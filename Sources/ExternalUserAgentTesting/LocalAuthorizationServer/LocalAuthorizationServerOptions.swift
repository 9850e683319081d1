// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentABI

/// How a ``LocalAuthorizationServer`` behaves: its client, its signing key, and on purpose, its faults.
public struct LocalAuthorizationServerOptions: Sendable {
    /// The algorithm ID tokens are signed with.
    public enum SigningAlgorithm: String, Sendable, CaseIterable {
        /// RSA with SHA-256, a 2048-bit key made at start.
        case rs256 = "RS256"
        /// ECDSA P-256 with SHA-256.
        case es256 = "ES256"
    }

    /// The ID tokens of a client registered with `id_token_signed_response_alg` `none` or `HS256`, which
    /// no key of the key set signs (it still publishes one, of ``SigningAlgorithm``).
    public enum KeylessAlgorithm: String, Sendable, CaseIterable {
        /// Unsigned (`header.payload.`).
        case none = "none"
        /// HMAC-SHA-256 with ``LocalAuthorizationServerOptions/clientSecret``.
        case hs256 = "HS256"
    }

    /// What `/authorize` does with a valid request.
    public enum AuthorizationPage: String, Sendable, CaseIterable {
        /// Approves at once as ``LocalAuthorizationServerOptions/subject`` and redirects back.
        case autoApprove
        /// Shows an HTML login form (a `username` field, filled with the subject, and Sign in / Deny
        /// buttons) that posts back to `/authorize`; the person, or the headless agent in follow mode
        /// with `form.username=NAME` (and `form.action=deny` to refuse), answers it.
        case loginForm
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
        /// The ID token's `iss` names another issuer.
        case wrongIssuerInIDToken
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
        /// The token endpoint waits ``LocalAuthorizationServerOptions/tokenEndpointDelay`` before answering.
        case slowTokenEndpoint
        /// The UserInfo endpoint answers about another subject than the access token's.
        case wrongUserInfoSubject
        /// The registration endpoint refuses with 403 and an HTML page (as a proxy or a web framework does).
        case registrationEndpointHTML
        /// The end-session endpoint answers a request without `id_token_hint` with 200, an empty page and no redirect
        /// (as Glewlwyd does): it ends a session only for a hint.
        case endSessionNeedsHint
    }

    /// The one registered client.
    public var clientID: String
    /// Its secret; `nil` makes it a public client (`client_id` in the body, no authentication).
    public var clientSecret: String?
    /// The subject (`sub`) every sign-in approves (with ``AuthorizationPage/loginForm``: the form's default).
    public var subject: String
    /// Approve at once, or show a login form.
    public var authorizationPage: AuthorizationPage
    /// The algorithm of the server's signing key, which signs ID tokens (and signed UserInfo) and which the JWKS
    /// publishes; read when the key is made, at start and at ``LocalAuthorizationServer/rotateSigningKey()``.
    public var signingAlgorithm: SigningAlgorithm
    /// Advertise and send `iss` in authorization responses (RFC 9207).
    public var sendsIssuerInResponse: Bool
    /// Access token lifetime, in seconds.
    public var accessTokenLifetime: Int
    /// The faults to play; empty for a well-behaved server.
    public var misbehaviors: Set<Misbehavior>
    /// How long the token endpoint waits with ``Misbehavior/slowTokenEndpoint``.
    public var tokenEndpointDelay: Duration
    /// Each refresh token works once, as with providers that rotate them: a refresh answers with a new
    /// one, and the one presented is refused with `invalid_grant` when presented again.
    public var rotatesRefreshTokens: Bool
    /// Fields put in every token response as raw JSON text, replacing the server's own
    /// (`["expires_in": "1e300"]`); an empty text leaves the field out.
    public var tokenResponseOverrides: [String: String]
    /// Claims put in every ID token as raw JSON text, replacing the server's own
    /// (`["exp": "\"soon\""]`); an empty text leaves the claim out. The token is still signed properly.
    public var idTokenClaimOverrides: [String: String]
    /// The client's public keys (JWKs), for `private_key_jwt` and request objects (``TestClientKey/publicJWK``).
    public var clientPublicKeys: [JSONValue] = []
    /// Advertise and serve the registration endpoint (`/register`, RFC 7591).
    public var offersRegistration = true
    /// ID tokens unsigned or HS256, for a client registered that way; `nil`: signed with the key.
    public var keylessIDTokens: KeylessAlgorithm? = nil
    /// The UserInfo endpoint answers with a JWT signed with the ID token key (`application/jwt`).
    public var signsUserInfo = false
    /// Claims put in every UserInfo response as raw JSON text, replacing the server's own (`_claim_names`,
    /// `_claim_sources` for aggregated and distributed claims); an empty text leaves the claim out.
    public var userInfoClaimOverrides: [String: String] = [:]
    /// Serve and advertise the UserInfo endpoint (`/userinfo`, the default): the claims of a valid Bearer
    /// access token's subject.
    public var servesUserinfo: Bool
    /// The `name` UserInfo answers with; `nil`: the subject, capitalised.
    public var userinfoName: String?
    /// `token_endpoint_auth_methods_supported` as advertised; `nil`: what the client uses (`none`, or both
    /// secret methods). The token endpoint still accepts every method.
    public var advertisedAuthMethods: [String]?
    /// Advertise and serve the revocation endpoint (`/revoke`, RFC 7009).
    public var offersRevocation = true
    /// Advertise and serve the end-session endpoint (`/end_session`, OpenID Connect RP-Initiated Logout).
    public var offersEndSession = true
    /// The post-logout redirect URIs of the client ``clientID``; `nil`: any loopback `http` URI (any port,
    /// RFC 8252 §7.3) or private-use scheme URI, as the authorization endpoint takes any redirect URI.
    /// A registered client's are its `post_logout_redirect_uris`, else its `redirect_uris`.
    public var postLogoutRedirectURIs: [String]? = nil
    /// `acr_values_supported` as advertised (left out when empty): an `acr_values` request naming one of them
    /// is honoured, the ID token's `acr` being the first such value; with `max_age`, ID tokens carry `auth_time`.
    public var acrValuesSupported: [String] = []

    /// A well-behaved server for the public client `test-client` that approves `alice` at once, signs RS256,
    /// sends `iss`, issues access tokens for 3600 s and serves UserInfo. Properties not in the list
    /// (``clientPublicKeys``, ``offersRegistration``, ``keylessIDTokens``, ``signsUserInfo``, ``offersRevocation``…) keep their defaults.
    public init(
        clientID: String = "test-client", clientSecret: String? = nil, subject: String = "alice",
        authorizationPage: AuthorizationPage = .autoApprove,
        signingAlgorithm: SigningAlgorithm = .rs256, sendsIssuerInResponse: Bool = true,
        accessTokenLifetime: Int = 3600, misbehaviors: Set<Misbehavior> = [],
        tokenEndpointDelay: Duration = .seconds(30), rotatesRefreshTokens: Bool = false,
        tokenResponseOverrides: [String: String] = [:], idTokenClaimOverrides: [String: String] = [:],
        servesUserinfo: Bool = true, userinfoName: String? = nil, advertisedAuthMethods: [String]? = nil
    ) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.subject = subject
        self.authorizationPage = authorizationPage
        self.tokenEndpointDelay = tokenEndpointDelay
        self.signingAlgorithm = signingAlgorithm
        self.sendsIssuerInResponse = sendsIssuerInResponse
        self.accessTokenLifetime = accessTokenLifetime
        self.misbehaviors = misbehaviors
        self.rotatesRefreshTokens = rotatesRefreshTokens
        self.tokenResponseOverrides = tokenResponseOverrides
        self.idTokenClaimOverrides = idTokenClaimOverrides
        self.servesUserinfo = servesUserinfo
        self.userinfoName = userinfoName
        self.advertisedAuthMethods = advertisedAuthMethods
    }
}
