// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// The one grammar of plugin, agent and receiver ids.
///
/// An id is 1 to 64 characters of lowercase ASCII letters, digits, `.`, `_` and `-`, and starts and ends with a
/// letter or a digit: `firefox`, `system-browser`, `example-c`, `org.example.agent_2`. Ids are compared
/// byte for byte. `*` is never an id: it is the configuration's wildcard ("any other agent").
///
/// Agent and receiver ids share one namespace (no receiver may take an agent's id, nor the other way round);
/// plugin ids have their own. The loader refuses a plugin whose id breaks the grammar, and skips an agent or
/// receiver whose id does, naming the plugin file and the id.
public enum ComponentID {
    /// The most characters an id may have.
    public static let maximumLength = 64

    /// The grammar in words, for error messages and documentation.
    public static let grammar =
        "1 to \(maximumLength) lowercase letters (a-z), digits, '.', '_' or '-', "
        + "starting and ending with a letter or a digit"

    /// Whether `id` follows the grammar.
    public static func isValid(_ id: String) -> Bool {
        let bytes = id.utf8
        guard (1...maximumLength).contains(bytes.count), let first = bytes.first, let last = bytes.last,
            isLetterOrDigit(first), isLetterOrDigit(last)
        else { return false }
        return bytes.allSatisfy {
            isLetterOrDigit($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
        }
    }

    /// `nil` when `id` follows the grammar, else what is wrong with it (the id shown quoted and escaped).
    public static func problem(with id: String) -> String? {
        guard !isValid(id) else { return nil }
        return "the id \(quoted(id)) is not a valid id: an id is \(grammar)"
    }

    /// `id` in double quotes with every character outside printable ASCII written as `\u{…}`, so a hostile id
    /// cannot reach a terminal or a log as control characters; at most 80 characters of it.
    static func quoted(_ id: String) -> String {
        var out = "\""
        for scalar in id.unicodeScalars.prefix(80) {
            if scalar.value >= 0x20 && scalar.value < 0x7F && scalar != "\"" && scalar != "\\" {
                out.unicodeScalars.append(scalar)
            } else {
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            }
        }
        return out + (id.unicodeScalars.count > 80 ? "…\"" : "\"")
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
