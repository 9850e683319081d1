// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore
import ExternalUserAgentABI

/// What `eua` learned about providers by using them, for `eua doctor`: kept in `provider-notes.json` beside the
/// saved states (0600; no token, no personal data — issuers and dates only).
///
/// Today one fact: the provider answered an end-session request with `client_id` (no `id_token_hint`) with an empty
/// page and no redirect, so it ends a session only for a hint (``SignOut/Delivery/hintPost`` or `hintGet`).
public struct ProviderNotes: Sendable {
    /// The file.
    public let path: String

    /// The notes file in `$XDG_STATE_HOME/eua` (else `~/.local/state/eua`).
    public static func standard(environment: [String: String]) -> ProviderNotes {
        let state = AuthStateFile.standard(environment: environment).path
        return ProviderNotes(
            path: String(state[..<(state.lastIndex(of: "/") ?? state.endIndex)]) + "/provider-notes.json")
    }

    /// Notes kept in `path`.
    public init(path: String) { self.path = path }

    /// When a sign-out saw `issuer` answer a `client_id`-only end-session request with an empty page and no redirect;
    /// `nil` when never (or the file cannot be read: the notes are advice, never a reason to fail).
    public func endSessionNeedsHint(issuer: String) -> Date? {
        guard case .object(let issuers)? = notes()["issuers"], case .object(let note)? = issuers[issuer],
            case .number(let seconds)? = note["end_session_needs_hint"], seconds.isFinite, seconds > 0
        else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    /// Records that `issuer` needs a hint to end a session. Throws `stateFileInvalid` naming the file when it cannot
    /// be written.
    public func recordEndSessionNeedsHint(issuer: String, at date: Date = Date()) throws {
        var all = notes()
        var issuers: [String: JSONValue] = [:]
        if case .object(let existing)? = all["issuers"] { issuers = existing }
        var note: [String: JSONValue] = [:]
        if case .object(let existing)? = issuers[issuer] { note = existing }
        note["end_session_needs_hint"] = .number(date.timeIntervalSince1970.rounded())
        issuers[issuer] = .object(note)
        all["issuers"] = .object(issuers)
        do throws(PrivateFile.Failure) {
            try PrivateFile.write(Data(JSONValue.object(all).jsonText.utf8), to: path)
        } catch {
            throw ExternalUserAgentError(.stateFileInvalid, "provider notes \(path): \(error.reason)")
        }
    }

    private func notes() -> [String: JSONValue] {
        guard let data = try? PrivateFile.read(path), let text = String(data: data, encoding: .utf8),
            case .object(let members)? = try? JSONValue(parsing: text)
        else { return [:] }
        return members
    }
}
