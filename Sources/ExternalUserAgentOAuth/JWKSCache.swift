#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgent
import JWTKit
import Logging

/// The provider's signing keys, fetched from `jwks_uri` when first needed and again, once per
/// lookup, when a token names a key id the cached set lacks (the provider rotated its keys).
actor JWKSCache {
    struct Selection {
        var keys: JWTKeyCollection
        var kid: String
    }

    private let jwksURI: URL?
    private let http: OAuthHTTP
    private let logger: Logger
    private var cached: (keys: JWTKeyCollection, kids: [String])?

    init(jwksURI: URL?, http: OAuthHTTP, logger: Logger) {
        self.jwksURI = jwksURI
        self.http = http
        self.logger = logger
    }

    nonisolated var source: String { jwksURI?.absoluteString ?? "(no jwks_uri)" }

    /// Keys holding `kid`; with no `kid`, the set must have exactly one key.
    func collection(containing kid: String?) async throws -> Selection {
        var fetchedNow = false
        if cached == nil {
            cached = try await fetch()
            fetchedNow = true
        }
        if let selection = select(kid) { return selection }
        if !fetchedNow {
            logger.debug("ID token names a key the cached JWKS lacks; fetching the JWKS again", metadata: ["kid": "\(kid ?? "-")"])
            cached = try await fetch()
            if let selection = select(kid) { return selection }
        }
        if let kid {
            throw ExternalUserAgentError(.idTokenInvalid,
                "the ID token is signed with key '\(kid)', which is not in the provider's key set \(source) (fetched again to be sure)")
        }
        throw ExternalUserAgentError(.idTokenInvalid,
            "the ID token names no key (kid) and the provider's key set \(source) has \(cached?.kids.count ?? 0) keys, not exactly one")
    }

    private func select(_ kid: String?) -> Selection? {
        guard let cached else { return nil }
        if let kid {
            return cached.kids.contains(kid) ? Selection(keys: cached.keys, kid: kid) : nil
        }
        return cached.kids.count == 1 ? Selection(keys: cached.keys, kid: cached.kids[0]) : nil
    }

    private func fetch() async throws -> (keys: JWTKeyCollection, kids: [String]) {
        guard let jwksURI else {
            throw ExternalUserAgentError(.idTokenInvalid,
                "the ID token cannot be checked: the provider's configuration has no jwks_uri")
        }
        let response: OAuthHTTP.Response
        do {
            response = try await http.get(jwksURI)
        } catch {
            throw ExternalUserAgentError(.idTokenInvalid, "the provider's key set \(source) could not be fetched: \(error)",
                                         underlying: error)
        }
        guard response.status == 200 else {
            throw ExternalUserAgentError(.idTokenInvalid, "the provider's key set \(source) answered HTTP \(response.status)")
        }
        let jwks: JWKS
        do {
            jwks = try JSONDecoder().decode(JWKS.self, from: response.body)
        } catch {
            throw ExternalUserAgentError(.idTokenInvalid, "the provider's key set \(source) is not a JWK Set: \(error)",
                                         underlying: error)
        }
        let keys = JWTKeyCollection()
        var kids: [String] = []
        for (index, original) in jwks.keys.enumerated() {
            var jwk = original
            let kid = jwk.keyIdentifier?.string ?? "#\(index)"
            jwk.keyIdentifier = JWKIdentifier(string: kid)
            do {
                try await keys.add(jwk: jwk)
                kids.append(kid)
            } catch {
                logger.debug("skipping a key of the JWKS that cannot verify signatures", metadata: ["kid": "\(kid)"])
            }
        }
        logger.debug("fetched the provider's key set", metadata: ["url": "\(source)", "keys": "\(kids.count)"])
        return (keys, kids)
    }
}
