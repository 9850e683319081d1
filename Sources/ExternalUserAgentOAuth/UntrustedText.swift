// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentRules
import ExternalUserAgentCore

/// Text from the network (a key id, an issuer, a field's value), made safe to put in a message:
/// escaped by the project's one rule (`TerminalText`), so that no control character reaches a
/// terminal, and cut short.
enum UntrustedText {
    /// The longest stretch of outside text a message quotes.
    static let limit = 40

    /// `"soon"`, `"a\x1b[31m"`: in quotes, escaped, at most `limit` characters.
    static func quoted(_ text: String) -> String {
        "\"" + printable(text) + "\""
    }

    /// The same without the quotes, for text that a message puts in quotes of its own.
    static func printable(_ text: String) -> String {
        TerminalText.escaped(text.count > limit ? String(text.prefix(limit)) + "…" : text)
    }
}
