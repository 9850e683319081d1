/// A TOML v1.0.0 document read into a tree of values, with the line where each key was written.
///
/// Reading stops at the first problem, thrown as a ``TOMLSyntaxError`` with its line, column and what was
/// expected there: bad syntax, and also a key or table defined twice.
struct TOMLDocument: Sendable {
    /// The top-level table (its `line` is `nil`).
    var root: TOMLTable

    init(parsing text: String) throws(TOMLSyntaxError) {
        var reader = Reader(scanner: TOMLScanner(text))
        root = try reader.document()
        root.line = nil
    }
}

/// Why a text is not valid TOML, and where.
struct TOMLSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The line, 1-based.
    var line: Int
    /// The column, 1-based, counted in characters.
    var column: Int
    /// What was expected there, in one line: `expected '=' after the key 'name', found 'x'`.
    var message: String

    var description: String { "line \(line), column \(column): \(message)" }
}

/// Reads the structure of a document: lines of key/values and table headers, arrays and inline tables.
private struct Reader {
    /// How deep arrays and inline tables may nest.
    static let maximumDepth = 128

    var scanner: TOMLScanner
    let root = TOMLTableBuilder(.header, line: 1)
    /// The table that key/values go into: the root, then the last header's.
    var table: TOMLTableBuilder
    var depth = 0

    init(scanner: TOMLScanner) {
        self.scanner = scanner
        table = root
    }

    mutating func document() throws(TOMLSyntaxError) -> TOMLTable {
        while true {
            scanner.skipWhitespace()
            switch scanner.current {
            case nil:
                return root.build()
            case .hash:
                try scanner.comment()
            case .lineFeed, .carriageReturn:
                _ = try scanner.lineBreak()
            case UInt8(ascii: "["):
                try header()
                try scanner.endOfLine(after: "the table header")
            default:
                try keyValue(into: table)
                try scanner.endOfLine(after: "the value")
            }
        }
    }

    /// Reads `[a.b]` or `[[a.b]]` and makes its table the one key/values go into.
    private mutating func header() throws(TOMLSyntaxError) {
        let open = scanner.index
        let isArray = scanner.byte(ahead: 1) == UInt8(ascii: "[")
        scanner.index += isArray ? 2 : 1
        let path = try scanner.key()
        let name = TOMLKeyPart.display(path)
        if isArray {
            guard scanner.current == UInt8(ascii: "]"), scanner.byte(ahead: 1) == UInt8(ascii: "]") else {
                let at = scanner.current == UInt8(ascii: "]") ? scanner.index + 1 : scanner.index
                throw scanner.error("expected ']]' to close the header [[\(name)]], found \(scanner.found(at: at))", at: at)
            }
            scanner.index += 2
        } else {
            guard scanner.current == UInt8(ascii: "]") else {
                throw scanner.error("expected ']' to close the header [\(name)], found \(scanner.found())")
            }
            scanner.index += 1
        }
        let line = scanner.line(of: open)
        do {
            table = isArray ? try root.appendTable(path, line: line) : try root.openTable(path, line: line)
        } catch {
            throw scanner.error(error.message, at: error.offset)
        }
    }

    /// Reads `key = value` and defines it in `table`.
    private mutating func keyValue(into table: TOMLTableBuilder) throws(TOMLSyntaxError) {
        let path = try scanner.key()
        guard scanner.current == UInt8(ascii: "=") else {
            throw scanner.error("expected '=' after the key '\(TOMLKeyPart.display(path))', found \(scanner.found())")
        }
        scanner.index += 1
        scanner.skipWhitespace()
        let line = scanner.line(of: path[0].offset)
        let value = try value()
        do {
            try table.define(path, value, line: line)
        } catch {
            throw scanner.error(error.message, at: error.offset)
        }
    }

    private mutating func value() throws(TOMLSyntaxError) -> TOMLValue {
        switch scanner.current {
        case .quote, .apostrophe: .string(try scanner.string())
        case UInt8(ascii: "["): try array()
        case UInt8(ascii: "{"): try inlineTable()
        default: try scanner.scalar()
        }
    }

    /// Reads `[…]`: values separated by commas, a trailing comma, line breaks and comments allowed.
    private mutating func array() throws(TOMLSyntaxError) -> TOMLValue {
        let open = scanner.index
        try enter()
        defer { depth -= 1 }
        scanner.index += 1
        var elements: [TOMLValue] = []
        while true {
            try scanner.skipBlankLines()
            switch scanner.current {
            case nil:
                throw scanner.error("expected ']' to close this array before the end of the file", at: open)
            case UInt8(ascii: "]"):
                scanner.index += 1
                return .array(elements)
            default:
                break
            }
            elements.append(try value())
            try scanner.skipBlankLines()
            switch scanner.current {
            case UInt8(ascii: ","):
                scanner.index += 1
            case UInt8(ascii: "]"):
                scanner.index += 1
                return .array(elements)
            case nil:
                throw scanner.error("expected ']' to close this array before the end of the file", at: open)
            default:
                throw scanner.error("expected ',' or ']' after an array element, found \(scanner.found())")
            }
        }
    }

    /// Reads `{…}`: key/values separated by commas, on one line, no trailing comma (TOML 1.0).
    private mutating func inlineTable() throws(TOMLSyntaxError) -> TOMLValue {
        try enter()
        defer { depth -= 1 }
        let table = TOMLTableBuilder(.dotted, line: scanner.line(of: scanner.index))
        scanner.index += 1
        scanner.skipWhitespace()
        if scanner.current == UInt8(ascii: "}") {
            scanner.index += 1
            return .table(table.build())
        }
        while true {
            try checkSameLine(expecting: "a key")
            try keyValue(into: table)
            scanner.skipWhitespace()
            switch scanner.current {
            case UInt8(ascii: ","):
                scanner.index += 1
                scanner.skipWhitespace()
                if scanner.current == UInt8(ascii: "}") {
                    throw scanner.error("expected a key after ',', found '}' (an inline table takes no trailing comma)")
                }
            case UInt8(ascii: "}"):
                scanner.index += 1
                return .table(table.build())
            default:
                try checkSameLine(expecting: "',' or '}'")
                throw scanner.error("expected ',' or '}' after a value in an inline table, found \(scanner.found())")
            }
        }
    }

    private func checkSameLine(expecting what: String) throws(TOMLSyntaxError) {
        switch scanner.current {
        case .lineFeed, .carriageReturn, nil:
            throw scanner.error("expected \(what), found \(scanner.found()) (an inline table is written on one line)")
        default:
            return
        }
    }

    private mutating func enter() throws(TOMLSyntaxError) {
        depth += 1
        guard depth <= Self.maximumDepth else {
            throw scanner.error("expected arrays and inline tables nested at most \(Self.maximumDepth) deep")
        }
    }
}
