// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentOAuth

/// What `eua login` has once the sign-in ended and the state was saved: what it prints comes from here.
struct LoginOutcome: Sendable {
    /// The token response; `nil` only when the sign-in ended without tokens.
    var tokens: TokenResponse?
    /// The validated ID token's claims, when there was one.
    var claims: IDTokenClaims?
    /// Who signed in, from the ID token or UserInfo.
    var identity: UserIdentity?
    /// The client, as it authenticated.
    var client: ClientCredentials
    /// Where the state was saved: --state-file, or the account's file.
    var stateFile: AuthStateFile
}
