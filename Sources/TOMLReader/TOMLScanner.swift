// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// Reads TOML text byte by byte: whitespace, line breaks, comments, keys and strings, and where each is.
///
/// Positions are byte offsets into the UTF-8 text; ``error(_:at:)`` turns one into a line and column.
/// Numbers, booleans, dates and times are read in `TOMLScanner+Scalars.swift`.
struct TOMLScanner {
    /// The text, as UTF-8.
    let bytes: [UInt8]
    /// The offset of the next byte to read.
    var index = 0
    /// The offset where each line starts (after a byte-order mark on the first).
    private var lineStarts: [Int]

    /// Scans `bytes`, which the caller has checked are UTF-8 (``TOMLScanner/firstInvalidUTF8(in:)``).
    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        lineStarts = [index]
        for (offset, byte) in bytes.enumerated() where byte == .lineFeed {
            lineStarts.append(offset + 1)
        }
    }

    /// The next byte, or `nil` at the end of the text.
    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// The byte `distance` after the next one, or `nil` past the end.
    func byte(ahead distance: Int) -> UInt8? {
        index + distance < bytes.count ? bytes[index + distance] : nil
    }

    // MARK: - Positions and errors

    /// The line (1-based) of byte `offset`.
    func line(of offset: Int) -> Int {
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return low + 1
    }

    /// An error at byte `offset` (the next byte when `nil`), with its line and column.
    func error(_ message: String, at offset: Int? = nil) -> TOMLSyntaxError {
        let offset = min(offset ?? index, bytes.count)
        let line = line(of: offset)
        let start = lineStarts[line - 1]
        let column = offset > start ? String(decoding: bytes[start..<offset], as: UTF8.self).count + 1 : 1
        return TOMLSyntaxError(line: line, column: column, message: message)
    }

    /// Line `line` (1-based) as a message shows it: without its line break and the whitespace around it,
    /// control characters as `U+001B`, cut after 80 characters.
    func excerpt(ofLine line: Int) -> String {
        guard line >= 1, line <= lineStarts.count else { return "" }
        var start = lineStarts[line - 1]
        var end = line < lineStarts.count ? lineStarts[line] : bytes.count
        while start < end, bytes[start] == .space || bytes[start] == .tab { start += 1 }
        while end > start, [UInt8.space, .tab, .lineFeed, .carriageReturn].contains(bytes[end - 1]) { end -= 1 }
        return Self.display(bytes[start..<end], limit: 80)
    }

    /// How the text at `offset` reads in a message: `'x'`, `the end of the line`, `the end of the file`.
    func found(at offset: Int? = nil) -> String {
        let offset = offset ?? index
        guard offset < bytes.count else { return "the end of the file" }
        let byte = bytes[offset]
        if byte == .lineFeed || (byte == .carriageReturn && offset + 1 < bytes.count && bytes[offset + 1] == .lineFeed)
        {
            return "the end of the line"
        }
        if byte < 0x20 || byte == 0x7F { return "control character \(Self.display([byte]))" }
        var end = offset + 1
        while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
        return "'\(Self.display(bytes[offset..<end]))'"
    }

    /// `text` for a message: control characters as `U+001B`, cut after `limit` characters.
    static func display(_ text: some Collection<UInt8>, limit: Int = 40) -> String {
        var shown = ""
        for (count, scalar) in String(decoding: text.prefix(4 * (limit + 1)), as: UTF8.self).unicodeScalars.enumerated()
        {
            if count == limit { return shown + "…" }
            if scalar.value < 0x20 || scalar.value == 0x7F {
                shown += "U+00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16, uppercase: true)
            } else {
                shown.unicodeScalars.append(scalar)
            }
        }
        return shown
    }

    // MARK: - Whitespace, line breaks and comments

    /// Skips spaces and tabs.
    mutating func skipWhitespace() {
        while let byte = current, byte == .space || byte == .tab { index += 1 }
    }

    /// Skips whitespace, comments and line breaks, as between the elements of an array.
    mutating func skipBlankLines() throws(TOMLSyntaxError) {
        while true {
            skipWhitespace()
            if current == .hash {
                try comment()
            } else if try !lineBreak() {
                return
            }
        }
    }

    /// Reads a line break (`\n` or `\r\n`) if one is next; a carriage return alone is an error.
    mutating func lineBreak() throws(TOMLSyntaxError) -> Bool {
        switch current {
        case .lineFeed:
            index += 1
            return true
        case .carriageReturn:
            guard byte(ahead: 1) == .lineFeed else {
                throw error(
                    "expected a line feed after the carriage return (a carriage return alone is not a line break)")
            }
            index += 2
            return true
        default:
            return false
        }
    }

    /// Reads a comment, from `#` up to (not including) the line break.
    mutating func comment() throws(TOMLSyntaxError) {
        index += 1
        while let byte = current, byte != .lineFeed {
            if byte == .carriageReturn, self.byte(ahead: 1) == .lineFeed { return }
            try checkNotControl(byte, in: "a comment")
            index += 1
        }
    }

    /// Reads the rest of a line after a value or header: whitespace, an optional comment, a line break.
    mutating func endOfLine(after what: String) throws(TOMLSyntaxError) {
        skipWhitespace()
        if current == .hash { try comment() }
        if current == nil { return }
        guard try lineBreak() else {
            throw error("expected the end of the line after \(what), found \(found())")
        }
    }

    /// Throws if `byte` is a control character other than tab, which TOML allows only as an escape.
    func checkNotControl(_ byte: UInt8, in place: String) throws(TOMLSyntaxError) {
        guard (byte < 0x20 && byte != .tab) || byte == 0x7F else { return }
        let escape = "\\u" + Self.display([byte]).dropFirst(2)
        let hint =
            switch place {
            case "a comment": ""
            case "a string", "a multi-line string": " (write it as \(escape))"
            default: " (a basic string can hold it as \(escape))"
            }
        throw error("expected no control character in \(place), found \(found())\(hint)")
    }

    // MARK: - Keys

    /// Reads a key: one or more parts joined by dots (`name`, `"a b".c`, `site.'x.y'`), whitespace around the
    /// dots allowed, and the whitespace after it.
    mutating func key() throws(TOMLSyntaxError) -> [TOMLKeyPart] {
        var parts: [TOMLKeyPart] = []
        while true {
            skipWhitespace()
            let start = index
            let name: String
            switch current {
            case .quote, .apostrophe:
                if byte(ahead: 1) == current, byte(ahead: 2) == current {
                    throw error(
                        "expected a key, found a multi-line string (a key is a bare or single-line quoted string)")
                }
                name = current == .quote ? try basicString() : try literalString()
            case let byte? where byte.isBareKey:
                while let byte = current, byte.isBareKey { index += 1 }
                name = String(decoding: bytes[start..<index], as: UTF8.self)
            default:
                let after = parts.isEmpty ? "" : " after '.'"
                throw error(
                    "expected a key\(after) (letters, digits, '-' and '_', or a quoted string), found \(found())")
            }
            parts.append(TOMLKeyPart(name: name, offset: start))
            skipWhitespace()
            guard current == .dot else { return parts }
            index += 1
        }
    }

    // MARK: - Strings

    /// Reads any of the four kinds of string, from its opening quote.
    mutating func string() throws(TOMLSyntaxError) -> String {
        let tripled = byte(ahead: 1) == current && byte(ahead: 2) == current
        switch (current, tripled) {
        case (.quote, false): return try basicString()
        case (.quote, true): return try multilineString(delimiter: .quote)
        case (_, false): return try literalString()
        case (_, true): return try multilineString(delimiter: .apostrophe)
        }
    }

    /// Reads a basic string (`"…"`, with escapes).
    mutating func basicString() throws(TOMLSyntaxError) -> String {
        index += 1
        var text: [UInt8] = []
        while true {
            switch current {
            case nil:
                throw error("expected '\"' to close the string, found the end of the file")
            case .quote:
                index += 1
                return String(decoding: text, as: UTF8.self)
            case .backslash:
                try escape(into: &text, multiline: false)
            case .lineFeed, .carriageReturn:
                throw error(
                    "expected '\"' to close the string before the end of the line (use \"\"\" for several lines)")
            case let byte?:
                try checkNotControl(byte, in: "a string")
                text.append(byte)
                index += 1
            }
        }
    }

    /// Reads a literal string (`'…'`, no escapes).
    mutating func literalString() throws(TOMLSyntaxError) -> String {
        index += 1
        let start = index
        while true {
            switch current {
            case nil:
                throw error("expected \"'\" to close the literal string, found the end of the file")
            case .apostrophe:
                index += 1
                return String(decoding: bytes[start..<(index - 1)], as: UTF8.self)
            case .lineFeed, .carriageReturn:
                throw error(
                    "expected \"'\" to close the literal string before the end of the line (use ''' for several lines)")
            case let byte?:
                try checkNotControl(byte, in: "a literal string")
                index += 1
            }
        }
    }

    /// Reads a multi-line basic (`"""…"""`) or literal (`'''…'''`) string. A line break right after the
    /// opening delimiter is not part of it; up to two quotes may end it just before the closing one.
    mutating func multilineString(delimiter: UInt8) throws(TOMLSyntaxError) -> String {
        let open = index
        index += 3
        _ = try lineBreak()
        var text: [UInt8] = []
        while true {
            switch current {
            case nil:
                let closing = delimiter == .quote ? "\"\"\"" : "'''"
                throw error("expected \(closing) to close this multi-line string before the end of the file", at: open)
            case delimiter:
                var run = 1
                while byte(ahead: run) == delimiter { run += 1 }
                let quotes = run >= 3 ? min(run - 3, 2) : run
                text.append(contentsOf: repeatElement(delimiter, count: quotes))
                index += quotes
                if run >= 3 {
                    index += 3
                    return String(decoding: text, as: UTF8.self)
                }
            case .backslash where delimiter == .quote:
                try escape(into: &text, multiline: true)
            case .lineFeed, .carriageReturn:
                let start = index
                _ = try lineBreak()
                text.append(contentsOf: bytes[start..<index])
            case let byte?:
                try checkNotControl(byte, in: "a multi-line string")
                text.append(byte)
                index += 1
            }
        }
    }

    /// Reads an escape sequence, from its backslash; in a multi-line string, a backslash that ends its line
    /// removes the line break and the whitespace that follows.
    private mutating func escape(into text: inout [UInt8], multiline: Bool) throws(TOMLSyntaxError) {
        let start = index
        index += 1
        let escapes = "\\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX \\UXXXXXXXX"
        switch current {
        case UInt8(ascii: "b"): text.append(0x08)
        case UInt8(ascii: "t"): text.append(.tab)
        case UInt8(ascii: "n"): text.append(.lineFeed)
        case UInt8(ascii: "f"): text.append(0x0C)
        case UInt8(ascii: "r"): text.append(.carriageReturn)
        case .quote: text.append(.quote)
        case .backslash: text.append(.backslash)
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            try unicodeEscape(into: &text, digits: current == UInt8(ascii: "u") ? 4 : 8, at: start)
            return
        case let byte?
        where multiline && (byte == .space || byte == .tab || byte == .lineFeed || byte == .carriageReturn):
            var end = index
            while end < bytes.count, bytes[end] == .space || bytes[end] == .tab { end += 1 }
            guard end < bytes.count, bytes[end] == .lineFeed || bytes[end] == .carriageReturn else {
                throw error(
                    "expected an escape (\(escapes)) or a line break after '\\', found \(found(at: end))", at: start)
            }
            index = end
            while true {
                skipWhitespace()
                guard try lineBreak() else { return }
            }
        case let byte? where byte > 0x20 && byte < 0x7F:
            throw error("expected an escape (\(escapes)), found '\\\(Self.display([byte]))'", at: start)
        default:
            throw error("expected an escape (\(escapes)) after '\\', found \(found())", at: start)
        }
        index += 1
    }

    /// Reads `\uXXXX` or `\UXXXXXXXX` (`digits` hexadecimal digits) from the `u`, as UTF-8.
    private mutating func unicodeEscape(into text: inout [UInt8], digits: Int, at start: Int) throws(TOMLSyntaxError) {
        var value: UInt32 = 0
        for offset in 1...digits {
            guard let digit = byte(ahead: offset)?.digitValue(radix: 16) else {
                let letter = digits == 4 ? "u" : "U"
                throw error(
                    "expected \(digits) hexadecimal digits after '\\\(letter)', found \(found(at: index + offset))",
                    at: start)
            }
            value = value * 16 + UInt32(digit)
        }
        guard let scalar = Unicode.Scalar(value) else {
            let written = Self.display(bytes[start..<(index + digits + 1)])
            throw error(
                "expected the code of a Unicode character, found '\(written)' (a surrogate or above 10FFFF)", at: start)
        }
        UTF8.encode(scalar) { text.append($0) }
        index += digits + 1
    }
}

/// One part of a dotted key, and where it was written.
struct TOMLKeyPart: Sendable, Equatable {
    var name: String
    /// The byte offset of the part in the text.
    var offset: Int

    /// `parts` as a message shows them: `agent-options.firefox`, `site."example.com"`; a long key shows
    /// its first and last parts (`a.a.a.…(9295 more).a.a`), a long part its first 40 characters.
    static func display(_ parts: some Collection<TOMLKeyPart>) -> String {
        let names = parts.map(\.name)
        guard names.count > 8 else { return names.map(quoted).joined(separator: ".") }
        return (names.prefix(3).map(quoted) + ["…(\(names.count - 5) more)"] + names.suffix(2).map(quoted))
            .joined(separator: ".")
    }

    /// `name` as TOML writes a key: bare when it can be, else a basic string with its control characters escaped.
    private static func quoted(_ name: String) -> String {
        if !name.isEmpty, name.utf8.allSatisfy(\.isBareKey) { return name.count <= 40 ? name : name.prefix(40) + "…" }
        var text = "\""
        for (count, scalar) in name.unicodeScalars.enumerated() {
            if count == 40 { return text + "…\"" }
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                text += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16, uppercase: true)
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text + "\""
    }
}

extension UInt8 {
    static let tab = UInt8(ascii: "\t")
    static let lineFeed = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
    static let space = UInt8(ascii: " ")
    static let quote = UInt8(ascii: "\"")
    static let apostrophe = UInt8(ascii: "'")
    static let backslash = UInt8(ascii: "\\")
    static let hash = UInt8(ascii: "#")
    static let dot = UInt8(ascii: ".")

    /// Whether the byte may be in a bare key: `A-Z a-z 0-9 - _`.
    var isBareKey: Bool {
        isASCIIDigit || (self | 0x20 >= UInt8(ascii: "a") && self | 0x20 <= UInt8(ascii: "z"))
            || self == UInt8(ascii: "-") || self == UInt8(ascii: "_")
    }

    var isASCIIDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }

    /// The digit's value in `radix` (2, 8, 10 or 16), or `nil`.
    func digitValue(radix: Int) -> Int? {
        let value: Int
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): value = Int(self) - 48
        case UInt8(ascii: "a")...UInt8(ascii: "f"): value = Int(self) - 87
        case UInt8(ascii: "A")...UInt8(ascii: "F"): value = Int(self) - 55
        default: return nil
        }
        return value < radix ? value : nil
    }
}
