// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore
import Logging

extension AuthState {
    /// The UserInfo of the signed-in person (``UserInfoEndpoint``), with an access token refreshed first
    /// when it is about to expire (``freshTokens(minimumValidity:force:)``).
    ///
    /// Throws `notAuthorized` when the state has no ID token to compare the UserInfo `sub` with (sign in
    /// with the `openid` scope), then what ``freshTokens(minimumValidity:force:)`` and
    /// ``UserInfoEndpoint/fetch(accessToken:expectedSubject:placement:)`` throw.
    public func userInfo(
        placement: UserInfoEndpoint.TokenPlacement = .authorizationHeader,
        signingAlgorithm: IDTokenAlgorithm? = nil, http: OAuthHTTP = OAuthHTTP(),
        logger: Logger = Logger(label: "eua.oauth")
    ) async throws -> UserInfo {
        guard let subject = idTokenClaims?.subject else {
            throw ExternalUserAgentError(
                .notAuthorized,
                "this sign-in has no ID token, so a UserInfo response cannot be matched to anyone (OpenID Connect Core "
                    + "§5.3.2); sign in with the 'openid' scope")
        }
        let tokens = try await freshTokens()
        var endpoint = UserInfoEndpoint(
            configuration: configuration, client: client, signingAlgorithm: signingAlgorithm,
            http: http, logger: logger)
        if tokens.tokenType.lowercased() == "dpop" {
            guard placement == .authorizationHeader else {
                throw ExternalUserAgentError(
                    .invalidOptions,
                    "a DPoP-bound access token is sent in the Authorization header with a proof, not in a form body "
                        + "(RFC 9449 §7.1); leave the placement at the header")
            }
            guard let dpopKey else {
                // Sent as Bearer it would travel without its proof, and a server that binds tokens refuses it anyway.
                throw ExternalUserAgentError(
                    .stateFileInvalid,
                    "the access token is DPoP-bound but the saved state has no DPoP key (dpop_key) to prove it with; "
                        + "sign in again")
            }
            endpoint.dpopKey = dpopKey
        }
        return try await endpoint.fetch(accessToken: tokens.accessToken, expectedSubject: subject, placement: placement)
    }
}
