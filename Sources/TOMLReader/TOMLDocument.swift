// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// A TOML v1.0.0 document read into a tree of values, with the line where each key was written.
///
/// Reading stops at the first problem, thrown as a ``TOMLSyntaxError`` with its line, column and what was
/// expected there: bytes that are not UTF-8, bad syntax, a key or table defined twice, and values nested
/// deeper than ``maximumDepth``. Reading takes time linear in the size of the text.
package struct TOMLDocument: Sendable {
    /// How deep values may nest: a value of the top-level table is 1 deep, each table, array or array of
    /// tables around it adds one. Every part of a dotted key or header counts, so no input, however it
    /// nests, makes the recursive code that reads, compares or frees the tree run out of stack.
    package static let maximumDepth = 128

    /// The top-level table (its `line` is `nil`).
    package var root: TOMLTable

    /// Reads `bytes`, the contents of the file `file` (named in the error): the document, or the first
    /// problem. Never traps, whatever the bytes; this is the entry point of the TOML fuzz target.
    package init(bytes: [UInt8], file: String) throws(TOMLSyntaxError) {
        do {
            try self.init(bytes)
        } catch {
            var error = error
            error.file = file
            throw error
        }
    }

    /// Reads `text`.
    init(parsing text: String) throws(TOMLSyntaxError) {
        try self.init(Array(text.utf8))
    }

    private init(_ bytes: [UInt8]) throws(TOMLSyntaxError) {
        let scanner = TOMLScanner(bytes)
        if let invalid = TOMLScanner.firstInvalidUTF8(in: bytes) { throw scanner.invalidUTF8Error(at: invalid) }
        var reader = Reader(scanner: scanner)
        do {
            root = try reader.document()
        } catch {
            var error = error
            error.excerpt = reader.scanner.excerpt(ofLine: error.line)
            throw error
        }
        root.line = nil
    }
}

/// Reads the structure of a document: lines of key/values and table headers, arrays and inline tables.
private struct Reader {
    var scanner: TOMLScanner
    let root = TOMLTableBuilder(.header, line: 1, depth: 0)
    /// The table that key/values go into: the root, then the last header's.
    var table: TOMLTableBuilder

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
        if isArray {
            guard scanner.current == UInt8(ascii: "]"), scanner.byte(ahead: 1) == UInt8(ascii: "]") else {
                let at = scanner.current == UInt8(ascii: "]") ? scanner.index + 1 : scanner.index
                throw scanner.error(
                    "expected ']]' to close the header [[\(TOMLKeyPart.display(path))]], "
                        + "found \(scanner.found(at: at))", at: at)
            }
            scanner.index += 2
        } else {
            guard scanner.current == UInt8(ascii: "]") else {
                throw scanner.error(
                    "expected ']' to close the header [\(TOMLKeyPart.display(path))], found \(scanner.found())")
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
        let depth = table.depth + path.count
        if depth > TOMLDocument.maximumDepth {
            let part = TOMLDocument.maximumDepth - table.depth
            throw scanner.error(
                TOMLTableBuilder.tooDeep("key '\(TOMLKeyPart.display(path[...part]))'"), at: path[part].offset)
        }
        guard scanner.current == UInt8(ascii: "=") else {
            throw scanner.error("expected '=' after the key '\(TOMLKeyPart.display(path))', found \(scanner.found())")
        }
        scanner.index += 1
        scanner.skipWhitespace()
        let line = scanner.line(of: path[0].offset)
        let value = try value(depth: depth)
        do {
            try table.define(path, value, line: line)
        } catch {
            throw scanner.error(error.message, at: error.offset)
        }
    }

    /// Reads a value that will be `depth` deep in the document.
    private mutating func value(depth: Int) throws(TOMLSyntaxError) -> TOMLValue {
        switch scanner.current {
        case .quote, .apostrophe: .string(try scanner.string())
        case UInt8(ascii: "["): try array(depth: depth)
        case UInt8(ascii: "{"): try inlineTable(depth: depth)
        default: try scanner.scalar()
        }
    }

    /// Reads `[…]`: values separated by commas, a trailing comma, line breaks and comments allowed.
    private mutating func array(depth: Int) throws(TOMLSyntaxError) -> TOMLValue {
        let open = scanner.index
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
            guard depth < TOMLDocument.maximumDepth else {
                throw scanner.error(TOMLTableBuilder.tooDeep("an array element"))
            }
            elements.append(try value(depth: depth + 1))
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
    private mutating func inlineTable(depth: Int) throws(TOMLSyntaxError) -> TOMLValue {
        let table = TOMLTableBuilder(.dotted, line: scanner.line(of: scanner.index), depth: depth)
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
}
