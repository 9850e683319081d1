// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore

/// The error codes of the OpenID Connect relying-party features: UserInfo, registration, WebFinger.
extension ExternalUserAgentError.Code {
    /// The UserInfo endpoint could not be reached, refused the access token, or answered with something
    /// that is not a UserInfo response.
    public static let userInfoFailed = Self("userInfoFailed")
    /// A UserInfo response failed its checks: another `sub` than the ID token's, a bad signature, a
    /// wrong `iss` or `aud`; its claims were not used.
    public static let userInfoInvalid = Self("userInfoInvalid")
    /// Dynamic client registration failed: unreachable endpoint, a refusal, or an answer that is not a
    /// client information response.
    public static let registrationFailed = Self("registrationFailed")
}
