#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgent
import JWTKit
import Logging

/// Validates ID tokens as OpenID Connect Core §3.1.3.7 asks, signature included.
///
/// The signature is checked with jwt-kit against the provider's JWKS (RS256, ES256 and the other
/// RSA/ECDSA algorithms; never `none` or HMAC). The key set is cached, and fetched again once
/// when a token names a `kid` the cache does not have. Keep one validator per provider to share the cache.
public struct IDTokenValidator: Sendable {
    /// Algorithms accepted in an ID token header.
    public static let acceptedAlgorithms: Set<String> = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512",
                                                         "ES256", "ES384", "ES512"]

    public let configuration: ServiceConfiguration
    public let clientID: String
    /// Allowed difference between this machine's clock and the server's, for `exp` and `iat`.
    public var clockSkew: TimeInterval
    private let keys: JWKSCache
    private let logger: Logger

    public init(configuration: ServiceConfiguration, clientID: String, clockSkew: TimeInterval = 60,
                http: OAuthHTTP = OAuthHTTP(), logger: Logger = Logger(label: "eua.oauth")) {
        self.configuration = configuration
        self.clientID = clientID
        self.clockSkew = clockSkew
        self.keys = JWKSCache(jwksURI: configuration.jwksURI, http: http, logger: logger)
        self.logger = logger
    }

    /// Checks `token` and returns its claims. Throws ``ExternalUserAgent/ExternalUserAgentError``
    /// with code `idTokenInvalid` (or `issuerMismatch` for a wrong `iss`).
    ///
    /// - Parameters:
    ///   - nonce: the request's nonce, which the token must carry; `nil` for a refreshed token.
    ///   - now: the current time (tests pass their own).
    public func validate(_ token: String, nonce: String?, now: Date = Date()) async throws -> IDTokenClaims {
        guard let jwt = CompactJWT(token) else {
            throw Self.invalid("the ID token is not a JWS compact serialization (header.payload.signature)")
        }
        let alg = jwt.header.alg
        guard Self.acceptedAlgorithms.contains(alg) else {
            throw Self.invalid("the ID token is signed with '\(alg)', which this client does not accept; "
                + "accepted: " + Self.acceptedAlgorithms.sorted().joined(separator: ", "))
        }
        let collection = try await keys.collection(containing: jwt.header.kid)
        let payload: VerifiedPayload
        do {
            payload = try await collection.keys.verify(token, as: VerifiedPayload.self)
        } catch let error as DecodingError {
            throw Self.invalid("the ID token's claims are incomplete or malformed (iss, sub, aud, exp and iat are required)",
                               underlying: error)
        } catch {
            throw Self.invalid("the ID token's signature does not verify with key '\(collection.kid)' of \(keys.source): \(error)",
                               underlying: error)
        }
        let claims = payload.claims
        try check(claims, nonce: nonce, now: now)
        logger.debug("ID token valid", metadata: ["alg": "\(alg)", "kid": "\(collection.kid)"])
        return claims
    }

    func check(_ claims: IDTokenClaims, nonce: String?, now: Date) throws {
        guard claims.issuer == configuration.issuer else {
            throw ExternalUserAgentError(.issuerMismatch,
                "the ID token was issued by '\(claims.issuer)', not '\(configuration.issuer)'")
        }
        guard claims.audience.contains(clientID) else {
            throw Self.invalid("the ID token is for audience \(claims.audience), not this client '\(clientID)'")
        }
        if let azp = claims.authorizedParty, azp != clientID {
            throw Self.invalid("the ID token's authorized party (azp) is '\(azp)', not this client '\(clientID)'")
        }
        if claims.audience.count > 1, claims.authorizedParty == nil {
            throw Self.invalid("the ID token has several audiences and no authorized party (azp)")
        }
        guard now.timeIntervalSince(claims.expiration) < clockSkew else {
            throw Self.invalid("the ID token expired at \(claims.expiration) (now \(now), allowed skew \(Int(clockSkew)) s)")
        }
        guard claims.issuedAt.timeIntervalSince(now) <= clockSkew else {
            throw Self.invalid("the ID token was issued in the future (\(claims.issuedAt), now \(now)); check the clocks")
        }
        if let nonce {
            guard let got = claims.nonce else {
                throw Self.invalid("the ID token has no nonce, but the request sent one")
            }
            guard got == nonce else {
                throw Self.invalid("the ID token's nonce is not this sign-in's; it may be replayed")
            }
        }
    }

    static func invalid(_ message: String, underlying: (any Error & Sendable)? = nil) -> ExternalUserAgentError {
        ExternalUserAgentError(.idTokenInvalid, message, underlying: underlying)
    }
}

/// The payload type jwt-kit decodes after checking the signature; the claims are checked by the validator.
struct VerifiedPayload: JWTPayload {
    var claims: IDTokenClaims

    init(from decoder: any Decoder) throws { claims = try IDTokenClaims(from: decoder) }
    func encode(to encoder: any Encoder) throws { try claims.encode(to: encoder) }
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
