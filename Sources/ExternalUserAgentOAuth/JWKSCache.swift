// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore
import Logging

/// The provider's signing keys, fetched from `jwks_uri` when first needed (or ahead, ``prefetch()``) and
/// again, once per lookup, when a token names a key id the cached set lacks or no key fits a token without
/// one (the provider rotated its keys).
actor JWKSCache {
    private let jwksURI: URL?
    private let http: OAuthHTTP
    private let logger: Logger
    private var cached: JSONWebKeySet?
    /// A fetch started ahead of need; its failure is not reported (the fetch when needed reports its own).
    private var pending: Task<JSONWebKeySet, any Error>?

    init(jwksURI: URL?, http: OAuthHTTP, logger: Logger) {
        self.jwksURI = jwksURI
        self.http = http
        self.logger = logger
    }

    nonisolated var source: String { Self.source(of: jwksURI) }

    /// How messages name the key set: its URL.
    private static func source(of jwksURI: URL?) -> String { jwksURI?.absoluteString ?? "(no jwks_uri)" }

    /// The one key that may verify a signature made with `alg` by key `kid` (`JSONWebKeySet.select(alg:kid:)`).
    func key(alg: String, kid: String?, what: String = "the ID token") async throws -> JSONWebKey {
        var fetchedNow = false
        if cached == nil, let ahead = pending {
            pending = nil
            // Fetched during the sign-in, not for this token: a key id it lacks may still mean rotation.
            cached = try? await ahead.value
        }
        if cached == nil {
            cached = try await fetch()
            fetchedNow = true
        }
        var result = cached!.select(alg: alg, kid: kid)
        var suffix = ""
        if case .failure(let failure) = result, failure.mayBeRotation, !fetchedNow {
            logger.debug(
                "no key of the cached JWKS fits the ID token; fetching the JWKS again",
                metadata: ["kid": "\(kid ?? "-")", "alg": "\(alg)"])
            cached = try await fetch()
            result = cached!.select(alg: alg, kid: kid)
            suffix = " (fetched again to be sure)"
        }
        return try result.mapError { Self.refusal($0, source: source, suffix: suffix, what: what) }.get()
    }

    /// The error for a key set with no key for the token.
    static func refusal(
        _ failure: JSONWebKeySet.SelectionFailure, source: String, suffix: String,
        what: String = "the ID token"
    ) -> ExternalUserAgentError {
        ExternalUserAgentError(.idTokenInvalid, "\(what) \(failure.reason); key set \(source)\(suffix)")
    }

    /// Starts fetching the key set now, while the person signs in, so that checking the ID token later waits
    /// for no round trip; returns the fetch, which the caller cancels once the keys can no longer be needed.
    /// Nothing when there is no `jwks_uri` or a set is already here or on its way.
    @discardableResult
    func prefetch() -> Task<JSONWebKeySet, any Error>? {
        guard jwksURI != nil, cached == nil, pending == nil else { return nil }
        let (jwksURI, http, logger) = (jwksURI, http, logger)
        let task = Task { try await Self.fetch(jwksURI, http: http, logger: logger) }
        pending = task
        return task
    }

    private func fetch() async throws -> JSONWebKeySet {
        try await Self.fetch(jwksURI, http: http, logger: logger)
    }

    private static func fetch(_ jwksURI: URL?, http: OAuthHTTP, logger: Logger) async throws -> JSONWebKeySet {
        let source = source(of: jwksURI)
        guard let jwksURI else {
            throw ExternalUserAgentError(
                .idTokenInvalid,
                "the provider's signatures cannot be checked: its configuration has no jwks_uri")
        }
        let response: OAuthHTTP.Response
        do {
            response = try await http.get(jwksURI)
        } catch {
            throw ExternalUserAgentError(
                .idTokenInvalid,
                "the provider's key set (JWKS) \(source) could not be fetched to check the ID token: \(error)",
                underlying: error)
        }
        guard response.status == 200 else {
            throw ExternalUserAgentError(
                .idTokenInvalid, "the provider's key set \(source) answered HTTP \(response.status)")
        }
        let keys = try Self.decode(response.body, source: source)
        logger.debug("fetched the provider's key set", metadata: ["url": "\(source)", "keys": "\(keys.keys.count)"])
        return keys
    }

    /// Reads a JWK Set; `idTokenInvalid` when it is not one.
    static func decode(_ body: Data, source: String) throws -> JSONWebKeySet {
        do {
            return try JSONWebKeySet(data: body)
        } catch {
            throw ExternalUserAgentError(
                .idTokenInvalid,
                "the provider's key set \(source) is not a JWK Set (a JSON object with a \"keys\" array)")
        }
    }
}
