// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore
import ExternalUserAgentABI

/// The tokens a sign-out revoked, saved in the state before anything else happens (the browser step may be
/// interrupted or time out): a state that holds it gives no token again, refreshes nothing, and asks for a new sign-in.
///
/// Saved as `"revoked": {"tokens": ["refresh_token", "access_token"], "at": <seconds since 1970>}`; the revoked
/// tokens' values are not saved any more.
public struct RevokedTokens: Sendable, Hashable {
    /// The tokens revoked, in the order they were.
    public var kinds: [TokenRevocation.TokenKind]
    /// When.
    public var date: Date

    /// A record of `kinds`, revoked at `date`.
    public init(kinds: [TokenRevocation.TokenKind], date: Date = Date()) {
        self.kinds = kinds
        self.date = date
    }

    /// Why the state's tokens cannot be used, as an error a caller shows (`notAuthorized`, remedy: sign in).
    func error(file: AuthStateFile?) -> ExternalUserAgentError {
        let saved = file.map { " (saved in \($0.path))" } ?? ""
        let words = kinds.map(\.words).joined(separator: " and ")
        return ExternalUserAgentError(
            .notAuthorized,
            "signed out: a sign-out revoked this sign-in's \(words) at \(date.formatted(.iso8601))\(saved), so they "
                + "are not used again; sign in again", remedies: [.signIn])
    }
}

extension RevokedTokens: Codable {
    private enum CodingKeys: String, CodingKey { case tokens, at }

    /// Reads the saved record: `tokens` names only `refresh_token` and `access_token`, `at` is a time in 0001…9999.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let names = try container.decode([String].self, forKey: .tokens)
        kinds = try names.map { name in
            guard let kind = TokenRevocation.TokenKind(rawValue: name) else {
                throw InvalidFieldError(
                    field: "revoked.tokens", problem: "has '\(name)', not refresh_token or access_token")
            }
            return kind
        }
        let seconds = try container.decode(Double.self, forKey: .at)
        guard seconds.isFinite, (0...253_402_300_799).contains(seconds) else {
            throw InvalidFieldError(field: "revoked.at", problem: "is \(seconds), not a time in seconds since 1970")
        }
        date = Date(timeIntervalSince1970: seconds)
    }

    /// Writes the record: the tokens' names and the time in whole seconds since 1970.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kinds.map(\.rawValue), forKey: .tokens)
        try container.encode(date.timeIntervalSince1970.rounded(), forKey: .at)
    }
}
