// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// Makes text that did not come from this project safe to print: no byte of it can move the cursor,
/// change colours, set a window title, or reorder what a person reads.
///
/// Escaped: every C0 control character (line breaks and tabs too, unless `keepingLineBreaks`), DEL, every
/// C1 control character, and the Unicode bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E,
/// U+2066–U+2069), which can make a line read differently from what it says. Used for every human-readable
/// line both programs print (through `Output`) and for log lines (`CommandLogging`); `--json` output
/// goes through it in the `.json` style, where the same characters become `\uXXXX` escapes.
package enum TerminalText {
    /// How an escaped character is written.
    package enum Style: Sendable {
        /// `\x1b`, `\x7f`, `\u{202e}`: visible, and unlike anything a terminal acts on.
        case readable
        /// `\u001b`, `\u202e`: the JSON escape, so the text stays valid JSON with the same value.
        case json
    }

    /// `text` with every character a terminal could act on written as an escape (see the type's description).
    package static func escaped(_ text: some StringProtocol, style: Style = .readable, keepingLineBreaks: Bool = false)
        -> String
    {
        guard text.unicodeScalars.contains(where: { needsEscape($0, keepingLineBreaks: keepingLineBreaks) }) else {
            return String(text)
        }
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count + 16)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar, keepingLineBreaks: keepingLineBreaks) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            let hex = String(scalar.value, radix: 16)
            switch style {
            case .readable:
                out += scalar.value < 0x100 ? "\\x" + (hex.count < 2 ? "0" : "") + hex : "\\u{" + hex + "}"
            case .json:
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return out
    }

    /// Whether `scalar` is one a terminal could act on.
    package static func needsEscape(_ scalar: Unicode.Scalar, keepingLineBreaks: Bool) -> Bool {
        switch scalar.value {
        case 0x0A: !keepingLineBreaks
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
