// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore
import ExternalUserAgentOAuth
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What `eua logout` reports: its stdout lines, its warnings, and with `--json` one JSON object.
///
/// JSON keys: `issuer`, `state_file`, `not_signed_in` (true only when there was no state), `revocation_supported`,
/// `revoked` (`refresh_token`, `access_token`, in order), `not_revoked` (`token_type_hint`, `error`, `message`),
/// `end_session` (`completed`, `sent`, `not_supported`, `not_requested`, `failed`), `end_session_error`,
/// `state_removed`, `state_kept`, `end_session_needs_hint` (only when true). Never a token.
struct LogoutOutput: Encodable {
    struct NotRevoked: Encodable {
        var token_type_hint: String
        var error: String
        var message: String
    }

    var issuer: String?
    var state_file: String
    var not_signed_in: Bool?
    var revocation_supported: Bool?
    var revoked: [String] = []
    var not_revoked: [NotRevoked] = []
    var end_session: String?
    var end_session_error: String?
    var state_removed = false
    var state_kept = false
    /// The provider answered a client_id-only end-session request with an empty page: it needs an id_token_hint.
    var end_session_needs_hint: Bool?
    /// No post-logout redirect URI was given or configured (not `--no-redirect`): said, with what to do; not in the JSON.
    var noRedirectConfigured = false

    enum CodingKeys: String, CodingKey {
        case issuer, state_file, not_signed_in, revocation_supported, revoked, not_revoked, end_session,
            end_session_error, state_removed, state_kept, end_session_needs_hint
    }

    init(stateFile: String, notSignedIn: Bool? = nil) {
        state_file = stateFile
        not_signed_in = notSignedIn
    }

    init(_ outcome: SignOut.Outcome, issuer: String, stateFile: String) {
        self.issuer = issuer
        state_file = stateFile
        revocation_supported = outcome.revocationSupported
        revoked = outcome.revoked.map(\.rawValue)
        not_revoked = outcome.revocationFailures.map {
            NotRevoked(
                token_type_hint: $0.kind.rawValue, error: $0.error.code.name, message: $0.error.commandLineMessage)
        }
        switch outcome.endSession {
        case .notRequested: end_session = "not_requested"
        case .notSupported: end_session = "not_supported"
        case .completed: end_session = "completed"
        case .sent: end_session = "sent"
        case .failed(let error):
            end_session = "failed"
            end_session_error = "\(error.commandLineReport)"
        }
        end_session_needs_hint = outcome.endSessionNeedsHint ? true : nil
        state_removed = outcome.stateRemoved
        state_kept = outcome.stateKept
    }

    /// A token not revoked, or an end-session request that failed: exit status 3.
    var providerSideFailed: Bool { !not_revoked.isEmpty || end_session == "failed" }

    /// The stdout lines, one per thing done.
    var lines: [String] {
        let at = issuer ?? "the provider"
        var lines = revoked.map { "Revoked the \($0 == "refresh_token" ? "refresh token" : "access token") at \(at)." }
        switch end_session {
        case "completed": lines.append("Ended the session at \(at); the browser came back to this app.")
        case "sent":
            lines.append(
                "Sent the sign-out request to \(at); the browser shows its page, and eua cannot "
                    + "confirm that the session ended there (no post-logout redirect URI comes back).")
        default: break
        }
        if state_removed { lines.append("Forgot the saved state \(state_file).") }
        if state_kept {
            lines.append(
                "Kept the saved state \(state_file): a token could not be revoked; run eua logout again later.")
        }
        lines.append(
            providerSideFailed
                ? "Signed out here; not everything at \(at) was done (see above)." : "Signed out of \(at).")
        return lines
    }

    /// The stderr warnings: what was not done at the provider, and why.
    var warnings: [String] {
        let at = issuer ?? "the provider"
        var warnings: [String] = []
        if revocation_supported == false {
            warnings.append(
                "warning: \(at) advertises no revocation_endpoint (RFC 7009): the tokens were not revoked, "
                    + "only forgotten; they stay valid until they expire")
        }
        for failure in not_revoked {
            let kind = failure.token_type_hint == "refresh_token" ? "refresh token" : "access token"
            warnings.append("warning: the \(kind) was not revoked: \(failure.message) [\(failure.error)]")
        }
        if end_session == "not_supported" {
            warnings.append(
                "warning: \(at) advertises no end_session_endpoint (OpenID Connect RP-Initiated Logout): "
                    + "its browser session goes on; sign out on the provider's own page to end it")
        }
        if let end_session_error {
            warnings.append("warning: the provider's session was not ended: \(end_session_error)")
        }
        if end_session_needs_hint == true {
            warnings.append(
                "note: \(at) answered the end-session request with an empty page and no redirect: it ends a "
                    + "session only for an id_token_hint; sign out with --end-session hint-get (or hint-post when it takes "
                    + "POST), or set [logout.end-session] \"\(at)\" = \"hint-get\" (eua doctor --issuer says so too)")
        }
        if noRedirectConfigured, end_session == "sent" {
            warnings.append(
                "note: no post-logout redirect URI is registered here, so none was sent; to have the browser "
                    + "come back and the sign-out confirmed, register one with the provider and give it with "
                    + "--post-logout-redirect-uri or [logout] post-logout-redirect-uri")
        }
        return warnings
    }

    func jsonText() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? String(decoding: encoder.encode(self), as: UTF8.self)) ?? "{}"
    }
}
