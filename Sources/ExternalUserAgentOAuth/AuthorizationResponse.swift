// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore

/// A successful authorization response: the code, checked against its request.
public struct AuthorizationResponse: Sendable, Hashable {
    /// The authorization code (single use, short-lived; never logged).
    public var code: String
    /// The `state` parameter, which must equal the request's.
    public var state: String
    /// The `iss` parameter (RFC 9207), when the server sent one.
    public var issuer: String?
    /// The scope the server granted, when it said.
    public var scope: String?

    /// A response from values at hand, checked against nothing (tests, a replayed flow);
    /// ``init(callbackURL:request:)`` parses and checks a real callback.
    public init(code: String, state: String, issuer: String? = nil, scope: String? = nil) {
        self.code = code
        self.state = state
        self.issuer = issuer
        self.scope = scope
    }

    /// Parses and checks the callback URL that ended `request`'s flow.
    ///
    /// In order: `state` must be exactly the request's (`stateMismatch`); RFC 9207 — when the server
    /// advertises `authorization_response_iss_parameter_supported` an `iss` must be present, and any
    /// `iss` must equal the issuer (`issuerMismatch`); an OAuth `error` becomes `userCanceled`
    /// (`access_denied`) or `oauthError`, with the server's `error_description` and an
    /// ``OAuthErrorResponse`` as the cause; otherwise there must be exactly one `code`.
    public init(callbackURL: URL, request: AuthorizationRequest) throws {
        let items = QueryParameters.parse(callbackURL)
        func single(_ name: String) throws -> String? {
            let values = items.filter { $0.name == name }
            guard values.count <= 1 else {
                throw ExternalUserAgentError(
                    name == "state" ? .stateMismatch : .oauthError,
                    "the authorization response repeats the '\(name)' parameter; it was rejected")
            }
            return values.first?.value
        }

        let state = try single("state")
        guard let state else {
            throw ExternalUserAgentError(
                .stateMismatch,
                "the authorization response has no 'state'; it may be forged (CSRF) — start the sign-in again")
        }
        guard state == request.state else {
            throw ExternalUserAgentError(
                .stateMismatch,
                "the authorization response's 'state' is not this sign-in's; it may be forged (CSRF) — start the sign-in again"
            )
        }

        let issuer = try single("iss")
        let expectedIssuer = request.configuration.issuer
        if let issuer, issuer != expectedIssuer {
            throw ExternalUserAgentError(
                .issuerMismatch,
                "the authorization response came from issuer '\(issuer)', not '\(expectedIssuer)' (RFC 9207); "
                    + "it may be a mix-up attack — the sign-in was stopped")
        }
        if issuer == nil, request.configuration.authorizationResponseIssParameterSupported {
            throw ExternalUserAgentError(
                .issuerMismatch,
                "the authorization response has no 'iss', but '\(expectedIssuer)' says it always sends one (RFC 9207); "
                    + "the sign-in was stopped")
        }

        if let error = try single("error") {
            let oauthError = OAuthErrorResponse(
                error: error, errorDescription: try single("error_description"),
                errorURI: try single("error_uri"))
            let described = oauthError.errorDescription.map { ": \($0)" } ?? ""
            if error == "access_denied" {
                throw ExternalUserAgentError(
                    .userCanceled,
                    "the sign-in was declined (access_denied)\(described)", underlying: oauthError)
            }
            throw ExternalUserAgentError(
                .oauthError,
                "the authorization server refused the sign-in with '\(error)'\(described)", underlying: oauthError)
        }

        guard let code = try single("code"), !code.isEmpty else {
            throw ExternalUserAgentError(
                .oauthError,
                "the authorization response has neither a 'code' nor an 'error'; the server's answer is not usable")
        }
        self.init(code: code, state: state, issuer: issuer, scope: try single("scope"))
    }
}
