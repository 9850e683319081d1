/// Text from the network (a key id, an issuer, a field's value), made safe to put in a message:
/// escaped, so that no control character reaches a terminal, and cut short.
enum UntrustedText {
    /// `"soon"`, `"a\u{1B}[31m"`: in quotes, escaped, at most 40 characters.
    static func quoted(_ text: String) -> String {
        String(reflecting: text.count > 40 ? String(text.prefix(40)) + "…" : text)
    }

    /// The same without the quotes, for text that a message puts in quotes of its own.
    static func printable(_ text: String) -> String {
        String(quoted(text).dropFirst().dropLast())
    }
}
