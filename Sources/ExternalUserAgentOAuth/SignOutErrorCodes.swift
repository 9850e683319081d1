// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore

/// The error codes of sign-out: added to the core's extensible `ExternalUserAgentError.Code`.
extension ExternalUserAgentError.Code {
    /// The revocation endpoint (RFC 7009) could not be reached, or refused to revoke a token.
    public static let revocationFailed = Self("revocationFailed")
    /// The provider has no end-session endpoint (OpenID Connect RP-Initiated Logout), or its answer did not
    /// come back to the post-logout redirect URI as it should.
    public static let endSessionFailed = Self("endSessionFailed")
}
