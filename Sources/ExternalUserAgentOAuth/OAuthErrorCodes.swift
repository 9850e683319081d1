// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore

/// The error codes of the OAuth client: added to the core's extensible `ExternalUserAgentError.Code`.
extension ExternalUserAgentError.Code {
    /// The authorization server's metadata could not be fetched, or is not valid for the issuer.
    public static let discoveryFailed = Self("discoveryFailed")
    /// An `iss` (in metadata, an authorization response or an ID token) is not the expected issuer.
    public static let issuerMismatch = Self("issuerMismatch")
    /// The token endpoint could not be reached, or answered with something that is not a token response.
    public static let tokenRequestFailed = Self("tokenRequestFailed")
    /// An ID token failed validation: signature, issuer, audience, nonce or time.
    public static let idTokenInvalid = Self("idTokenInvalid")
    /// A saved authorization state file is unreadable, corrupt, not ours, or not private.
    public static let stateFileInvalid = Self("stateFileInvalid")
    /// There is no authorization to use: never signed in, or no refresh token to renew it.
    public static let notAuthorized = Self("notAuthorized")
    /// An account choice (`--account`) names no saved account or several, or none was named among several.
    public static let accountChoiceInvalid = Self("accountChoiceInvalid")
    /// The storage back end the configuration forces (`secret-service`) is not available here.
    public static let storageUnavailable = Self("storageUnavailable")
}
