// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore

/// The remedies of the OAuth client's errors: added to the core's ``ExternalUserAgentError/Remedy``, which a
/// program maps to its own words (a command line to its flags).
extension ExternalUserAgentError.Remedy {
    /// Give the client's secret (a confidential client's secret is never saved, so it is needed each time).
    public static let giveClientSecret = Self("giveClientSecret")
    /// Give the client's private key (a JWK or PEM file) for `private_key_jwt` or signed request objects.
    public static let giveClientKey = Self("giveClientKey")
    /// Give the client id of a client registered by hand.
    public static let giveClientID = Self("giveClientID")
    /// Give the issuer's URL instead of an account name to look it up with.
    public static let giveIssuer = Self("giveIssuer")
    /// Give the redirect URI exactly as registered with the provider.
    public static let giveRedirectURI = Self("giveRedirectURI")
    /// Name the algorithm the client is registered with for ID tokens (`id_token_signed_response_alg`).
    public static let giveIDTokenAlgorithm = Self("giveIDTokenAlgorithm")
    /// Register the client (again) with the provider.
    public static let registerClient = Self("registerClient")
    /// Sign in (again) interactively: there is no usable saved authorization.
    public static let signIn = Self("signIn")
    /// Renew the access token with the refresh token.
    public static let refreshTokens = Self("refreshTokens")
    /// Name one of the saved accounts.
    public static let chooseAccount = Self("chooseAccount")
    /// Sign in through the authorization code flow (a browser or the manual agent), not the device grant.
    public static let useCodeFlow = Self("useCodeFlow")
    /// Sign in with the device authorization grant (RFC 8628), where the provider offers it.
    public static let useDeviceFlow = Self("useDeviceFlow")
    /// Sign in without asking for DPoP-bound tokens.
    public static let withoutDPoP = Self("withoutDPoP")
    /// Leave pushed authorization requests (RFC 9126) on.
    public static let allowPushedRequests = Self("allowPushedRequests")
}
