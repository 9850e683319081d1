// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore

/// A value of the OpenID Connect `prompt` parameter (Core §3.1.2.1): what the provider should show the person.
///
/// Several may be sent together (`login consent`), except ``none``, which must be alone.
public struct Prompt: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The value as sent (`select_account`).
    public let rawValue: String

    /// `nil` unless `rawValue` is one of ``known``.
    public init?(rawValue: String) {
        guard Self.known.contains(where: { $0.rawValue == rawValue }) else { return nil }
        self.rawValue = rawValue
    }

    private init(_ value: String) { rawValue = value }

    /// Show nothing: sign in silently or fail with `login_required`, `consent_required`…
    public static let none = Prompt("none")
    /// Ask the person to sign in again even when the provider has a session.
    public static let login = Prompt("login")
    /// Ask the person to consent again.
    public static let consent = Prompt("consent")
    /// Let the person choose among the accounts the provider knows.
    public static let selectAccount = Prompt("select_account")

    /// The values this client sends, in the order of the specification.
    public static let known: [Prompt] = [.none, .login, .consent, .selectAccount]

    /// The value as sent.
    public var description: String { rawValue }

    /// The values of `text` (space- or comma-separated: `login consent`); throws `invalidOptions` naming an unknown
    /// value, or `none` with another (Core §3.1.2.1 makes that an error). `source` names where the text came from.
    public static func parse(_ text: String, source: String = "prompt") throws -> [Prompt] {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        let values = try words.map { word in
            guard let value = Prompt(rawValue: word) else {
                throw ExternalUserAgentError(
                    .invalidOptions,
                    "\(source): '\(word)' is not a prompt value; use none, login, consent or select_account")
            }
            return value
        }
        try check(values, source: source)
        return values
    }

    /// Throws `invalidOptions` when `values` has ``none`` with another value, or a value twice.
    public static func check(_ values: [Prompt], source: String = "prompt") throws {
        if values.contains(.none), values.count > 1 {
            throw ExternalUserAgentError(
                .invalidOptions,
                "\(source): 'none' cannot be sent with another prompt value (OpenID Connect Core §3.1.2.1); give it alone"
            )
        }
        if Set(values).count != values.count {
            throw ExternalUserAgentError(.invalidOptions, "\(source): a prompt value is given twice; give each once")
        }
    }
}
