// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore
import Logging

/// Validates ID tokens as OpenID Connect Core §3.1.3.7 asks, signature included.
///
/// The header's `alg` must be one of ``acceptedAlgorithms`` (RSA and ECDSA), or exactly the algorithm the
/// client registered (``IDTokenAlgorithm``: `none` and HMAC only that way), and it decides the key: the one key of the provider's JWKS whose `kty`, curve, `alg`, `use` and `key_ops`
/// allow that algorithm (and whose `kid` is the header's, when it names one). The signature is then
/// checked with swift-crypto with that algorithm only, and the claims are read and checked. The key set is
/// cached, and fetched again once when no cached key fits. Keep one validator per provider to share the cache.
public struct IDTokenValidator: Sendable {
    /// Algorithms accepted in an ID token header.
    public static let acceptedAlgorithms: Set<String> = [
        "RS256", "RS384", "RS512", "PS256", "PS384", "PS512",
        "ES256", "ES384", "ES512",
    ]

    /// The provider: the `iss` a token must have, and its key set (`jwks_uri`).
    public let configuration: ServiceConfiguration
    /// The client a token must be for: `aud` must name it, and `azp`, when present, must be it.
    public let clientID: String
    /// The algorithm the client registered for its ID tokens; `nil`: any of ``acceptedAlgorithms``.
    public let algorithm: IDTokenAlgorithm?
    /// Allowed difference between this machine's clock and the server's, for `exp` and `iat`.
    public var clockSkew: TimeInterval
    /// The client secret, the key of HMAC-signed tokens (`HS256`…); never logged.
    private let clientSecret: String?
    private let keys: JWKSCache
    private let logger: Logger

    /// A validator for `clientID` with no registered algorithm (any of ``acceptedAlgorithms``; no secret, so
    /// no HMAC) and ``clockSkew`` seconds of allowance (60 by default).
    public init(
        configuration: ServiceConfiguration, clientID: String, clockSkew: TimeInterval = 60,
        http: OAuthHTTP = OAuthHTTP(), logger: Logger = Logger(label: "eua.oauth")
    ) {
        self.init(
            configuration: configuration, clientID: clientID, algorithm: nil, clientSecret: nil,
            clockSkew: clockSkew, http: http, logger: logger)
    }

    /// A validator for `client`: its id, its registered ``ClientCredentials/idTokenAlgorithm`` and, for
    /// `HS256`/`HS384`/`HS512`, its secret.
    public init(
        configuration: ServiceConfiguration, client: ClientCredentials, clockSkew: TimeInterval = 60,
        http: OAuthHTTP = OAuthHTTP(), logger: Logger = Logger(label: "eua.oauth")
    ) {
        self.init(
            configuration: configuration, clientID: client.clientID, algorithm: client.idTokenAlgorithm,
            clientSecret: client.clientSecret, clockSkew: clockSkew, http: http, logger: logger)
    }

    /// A validator for `client` that takes the provider's keys from `keys` (which may have fetched them ahead).
    init(
        configuration: ServiceConfiguration, client: ClientCredentials, keys: JWKSCache, http: OAuthHTTP, logger: Logger
    ) {
        self.init(
            configuration: configuration, clientID: client.clientID, algorithm: client.idTokenAlgorithm,
            clientSecret: client.clientSecret, clockSkew: 60, http: http, logger: logger, keys: keys)
    }

    init(
        configuration: ServiceConfiguration, clientID: String, algorithm: IDTokenAlgorithm?,
        clientSecret: String?, clockSkew: TimeInterval, http: OAuthHTTP, logger: Logger, keys: JWKSCache? = nil
    ) {
        self.configuration = configuration
        self.clientID = clientID
        self.algorithm = algorithm
        self.clientSecret = clientSecret
        self.clockSkew = clockSkew
        self.keys = keys ?? JWKSCache(jwksURI: configuration.jwksURI, http: http, logger: logger)
        self.logger = logger
    }

    /// Checks `token` and returns its claims. Throws `ExternalUserAgentError`
    /// with code `idTokenInvalid` (or `issuerMismatch` for a wrong `iss`).
    ///
    /// - Parameters:
    ///   - token: the ID token as received (a compact JWS, or an unsigned JWT for a client registered with `none`).
    ///   - nonce: the request's nonce, which the token must carry; `nil` for a refreshed token.
    ///   - delivery: how the token came; an unsigned one (registered `none`) only from the code exchange.
    ///   - now: the current time (tests pass their own).
    public func validate(
        _ token: String, nonce: String?, delivery: IDTokenDelivery = .other,
        now: Date = Date()
    ) async throws -> IDTokenClaims {
        let jwt = try await verified(token, delivery: delivery)
        let claims = try jwt.claims()
        try Self.check(
            claims, issuer: configuration.issuer, clientID: clientID, nonce: nonce, now: now, clockSkew: clockSkew)
        logger.debug("ID token valid", metadata: ["alg": "\(jwt.header.alg)", "kid": "\(jwt.header.kid ?? "-")"])
        return claims
    }

    /// Splits a JWS the provider made for this client (an ID token, a signed UserInfo response) and checks
    /// its algorithm and signature: with the key set, the client secret (HMAC) or, for `none`, nothing.
    /// `what` names the token in messages.
    func verified(_ token: String, delivery: IDTokenDelivery, what: String = "the ID token") async throws -> CompactJWT
    {
        let jwt = try CompactJWT.parse(token, what: what)
        let alg = jwt.header.alg
        try Self.checkAlgorithm(alg, registered: algorithm, delivery: delivery, what: what)
        if alg == "none" {
            try SymmetricSignature.checkUnsigned(token, what: what)
        } else if IDTokenAlgorithm.symmetricAlgorithms.contains(alg) {
            guard let clientSecret, !clientSecret.isEmpty else {
                throw Self.invalid(
                    "\(what) is signed with \(alg), which is checked with the client secret, and none "
                        + "was given; give it", remedies: [.giveClientSecret])
            }
            try SymmetricSignature.verify(token, alg: alg, secret: clientSecret, what: what)
        } else {
            let key = try await keys.key(alg: alg, kid: jwt.header.kid, what: what)
            try await Self.verifySignature(of: token, alg: alg, key: key, source: keys.source, what: what)
        }
        return jwt
    }

    /// Validates `token` against a key set given as bytes, with no network: what ``validate(_:nonce:delivery:now:)``
    /// does once the JWKS is fetched. For fuzzing and tests; never traps.
    package static func validate(
        _ token: String, keySet: Data, issuer: String, clientID: String, nonce: String?,
        now: Date, clockSkew: TimeInterval = 60
    ) async throws -> IDTokenClaims {
        let jwt = try CompactJWT.parse(token)
        try checkAlgorithm(jwt.header.alg, registered: nil, delivery: .other)
        let source = "(given)"
        let key = try JWKSCache.decode(keySet, source: source).select(alg: jwt.header.alg, kid: jwt.header.kid)
            .mapError { JWKSCache.refusal($0, source: source, suffix: "") }.get()
        try await verifySignature(of: token, alg: jwt.header.alg, key: key, source: source)
        let claims = try jwt.claims()
        try check(claims, issuer: issuer, clientID: clientID, nonce: nonce, now: now, clockSkew: clockSkew)
        return claims
    }

    /// Checks the signature with `key`, for `alg` and nothing else (``AsymmetricSignature``).
    private static func verifySignature(
        of token: String, alg: String, key: JSONWebKey, source: String,
        what: String = "the ID token"
    ) async throws {
        do throws(AsymmetricSignature.Failure) {
            try AsymmetricSignature.verify(token, alg: alg, key: key)
        } catch .unusableKey(let why) {
            throw invalid(
                "\(key.label) of the provider's key set \(source) cannot be used: its public key is not valid "
                    + "(\(why))")
        } catch .mismatch(let why) {
            throw invalid("\(what)'s \(alg) signature does not verify with \(key.label) of \(source): \(why)")
        }
    }

    /// Checks the claims (OpenID Connect Core §3.1.3.7 steps 2–11 that apply to a native client).
    static func check(
        _ claims: IDTokenClaims, issuer: String, clientID: String, nonce: String?, now: Date,
        clockSkew: TimeInterval
    ) throws {
        guard claims.issuer == issuer else {
            throw ExternalUserAgentError(
                .issuerMismatch,
                "the ID token was issued by '\(UntrustedText.printable(claims.issuer))', not '\(issuer)'")
        }
        guard claims.audience.contains(clientID) else {
            let audience = claims.audience.map(UntrustedText.printable)
            throw invalid("the ID token is for audience \(audience), not this client '\(clientID)'")
        }
        if let azp = claims.authorizedParty, azp != clientID {
            throw invalid(
                "the ID token's authorized party (azp) is '\(UntrustedText.printable(azp))', "
                    + "not this client '\(clientID)'")
        }
        if claims.audience.count > 1, claims.authorizedParty == nil {
            throw invalid("the ID token has several audiences and no authorized party (azp)")
        }
        guard now.timeIntervalSince(claims.expiration) < clockSkew else {
            throw invalid("the ID token expired at \(claims.expiration) (now \(now), allowed skew \(clockSkew) s)")
        }
        guard claims.issuedAt.timeIntervalSince(now) <= clockSkew else {
            throw invalid("the ID token was issued in the future (\(claims.issuedAt), now \(now)); check the clocks")
        }
        if let nonce {
            guard let got = claims.nonce else {
                throw invalid("the ID token has no nonce, but the request sent one")
            }
            guard got == nonce else {
                throw invalid("the ID token's nonce is not this sign-in's; it may be replayed")
            }
        }
    }

    static func invalid(
        _ message: String, underlying: (any Error & Sendable)? = nil,
        remedies: [ExternalUserAgentError.Remedy] = []
    ) -> ExternalUserAgentError {
        ExternalUserAgentError(.idTokenInvalid, message, underlying: underlying, remedies: remedies)
    }
}
