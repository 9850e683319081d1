// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The readers of what servers (and the state file) hand this client, each from raw bytes and with no
/// network: the entry points for fuzzing. None of them traps on any input; each returns the value or
/// throws the error the client would show.
package enum UntrustedInput {
    /// A token endpoint's answer with HTTP `status`: a ``TokenResponse`` on 200, else the OAuth error.
    package static func tokenResponse(
        _ body: Data, status: Int = 200,
        contentType: String? = "application/json"
    ) throws -> TokenResponse {
        try TokenEndpoint.interpret(
            status: status, contentType: contentType, body: body,
            endpoint: "(given)", purpose: "request")
    }

    /// An OAuth error response (RFC 6749 §5.2) alone.
    package static func errorResponse(_ body: Data) throws -> OAuthErrorResponse {
        try JSONDecoder().decode(OAuthErrorResponse.self, from: body)
    }

    /// A device authorization response (RFC 8628 §3.2).
    package static func deviceAuthorizationResponse(_ body: Data) throws -> DeviceAuthorizationResponse {
        try DeviceAuthorization.decode(body, endpoint: "(given)")
    }

    /// Authorization server metadata, which must name `issuer` exactly.
    package static func discoveryDocument(_ body: Data, issuer: String) throws -> ServiceConfiguration {
        try Discovery.decode(body, from: "(given)", issuer: issuer)
    }

    /// A JWK Set, and the key each accepted algorithm would choose for a token with no `kid` and for
    /// one naming the `kid` of each of the first eight keys. Returns how many keys the set has.
    package static func keySet(_ body: Data) throws -> Int {
        let set = try JWKSCache.decode(body, source: "(given)")
        for alg in IDTokenValidator.acceptedAlgorithms {
            _ = set.select(alg: alg, kid: nil)
            for key in set.keys.prefix(8) { _ = set.select(alg: alg, kid: key.kid) }
        }
        return set.keys.count
    }

    /// An ID token checked against a key set given as bytes: header, key choice, signature, claims,
    /// issuer, audience, nonce and times (as at `now`).
    package static func idToken(
        _ token: Data, keySet: Data, issuer: String, clientID: String, nonce: String?,
        now: Date
    ) async throws -> IDTokenClaims {
        try await IDTokenValidator.validate(
            String(decoding: token, as: UTF8.self), keySet: keySet, issuer: issuer,
            clientID: clientID, nonce: nonce, now: now)
    }

    /// The contents of a saved state file (no permission checks: those need a real file).
    package static func stateFile(_ data: Data) throws -> (tokens: TokenResponse?, claims: IDTokenClaims?) {
        let contents = try AuthStateFile(path: "(given)").decode(data)
        return (contents.tokenResponse, contents.idTokenClaims)
    }
}
