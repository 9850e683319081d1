// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Foundation
import Testing
@testable import TOMLReader

@Suite("TOML documents")
struct TOMLDocumentTests {
    /// The package's root folder, where `Examples/` is.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The tree on one line, each key with the line it was written on: `{a@1: 1, b@2: {c@3: "x"}}`.
    static func render(_ value: TOMLValue) -> String {
        switch value {
        case .table(let table):
            let entries = table.keys.map { key in
                let name = key.utf8.allSatisfy(\.isBareKey) && !key.isEmpty ? key : key.debugDescription
                return "\(name)@\(table.line(of: key) ?? 0): \(render(table[key]!))"
            }
            return "{" + entries.joined(separator: ", ") + "}"
        case .array(let elements): return "[" + elements.map(render).joined(separator: ", ") + "]"
        case .string(let text): return text.debugDescription
        case .integer(let value): return "\(value)"
        case .float(let value): return "\(value)"
        case .bool(let value): return "\(value)"
        case .dateTime(let text): return "dateTime(\(text))"
        case .date(let text): return "date(\(text))"
        case .time(let text): return "time(\(text))"
        }
    }

    static func parse(_ text: String) throws -> String {
        render(.table(try TOMLDocument(parsing: text).root))
    }

    @Test(
        "documents: tables, keys and arrays, each key with its line",
        arguments: [
            // Comments and blank lines.
            ("# top\n\na = 1 # after a value\n  # indented\nb = 2", "{a@3: 1, b@5: 2}"),
            // Bare, quoted, literal, empty and numeric keys.
            (
                "bare_key-1 = 1\n\"quoted key\" = 2\n'literal.key' = 3\n\"\" = 4\n1234 = 5\n\"\\u00e9\" = 6\n",
                #"{bare_key-1@1: 1, "quoted key"@2: 2, "literal.key"@3: 3, ""@4: 4, 1234@5: 5, "é"@6: 6}"#
            ),
            // Dotted keys define tables, with whitespace around the dots; 3.14 is two keys.
            ("a.b.c = 1\na . \"b\" . d = 2\n3.14 = \"pi\"\n", #"{a@1: {b@1: {c@1: 1, d@2: 2}}, 3@3: {14@3: "pi"}}"#),
            // Table headers, dotted and quoted, with whitespace inside the brackets.
            (
                "[table]\nkey = 1\n\n[a.b]\nc = 2\n[ d . \"e\" ]\n",
                "{table@1: {key@2: 1}, a@4: {b@4: {c@5: 2}}, d@6: {e@6: {}}}"
            ),
            // A super-table defined after its sub-table takes the line of its own header.
            ("[x.y.z]\nw = 1\n[x]\nv = 2\n", "{x@3: {y@1: {z@1: {w@2: 1}}, v@4: 2}}"),
            // A header may add a sub-table to a table that dotted keys defined.
            (
                "[fruit]\napple.color = \"red\"\napple.taste.sweet = true\n[fruit.apple.texture]\nsmooth = true\n",
                #"{fruit@1: {apple@2: {color@2: "red", taste@3: {sweet@3: true}, texture@4: {smooth@5: true}}}}"#
            ),
            // Dotted keys may go into a table that was only named on the way to a header.
            ("[a.b.c]\n[a]\nb.d = 1\n", "{a@2: {b@3: {c@1: {}, d@3: 1}}}"),
            // Arrays of tables; the key's line is the first [[header]].
            (
                "[[products]]\nname = \"Hammer\"\n[[products]]\n[[products]]\nname = \"Nail\"\n",
                #"{products@1: [{name@2: "Hammer"}, {}, {name@5: "Nail"}]}"#
            ),
            // Sub-tables and nested arrays of tables go into the last table of the array.
            (
                "[[fruits]]\nname = \"apple\"\n[fruits.physical]\ncolor = \"red\"\n[[fruits.varieties]]\nname = \"red delicious\"\n"
                    + "[[fruits.varieties]]\nname = \"granny smith\"\n[[fruits]]\nname = \"banana\"\n[[fruits.varieties]]\nname = \"plantain\"\n",
                #"{fruits@1: [{name@2: "apple", physical@3: {color@4: "red"}, varieties@5: [{name@6: "red delicious"}, "#
                    + #"{name@8: "granny smith"}]}, {name@10: "banana", varieties@11: [{name@12: "plantain"}]}]}"#
            ),
            // Arrays: mixed types, nesting, empty, inline tables inside.
            (
                "a = [1, \"two\", 3.0, [4, [5]], {six = 6}, true, 1979-05-27]\nb = []\nc = [ ]\n",
                #"{a@1: [1, "two", 3.0, [4, [5]], {six@1: 6}, true, date(1979-05-27)], b@2: [], c@3: []}"#
            ),
            // Multi-line arrays with comments and a trailing comma; the key's line is where it was written.
            (
                "a = [ # start\n  1, # one\n  # nothing here\n  2,\n]\nb = [\n\"x\"\n\n,\"y\"]\nc = 3\n",
                #"{a@1: [1, 2], b@6: ["x", "y"], c@10: 3}"#
            ),
            // A multi-line string moves the next key's line on.
            ("s = \"\"\"\nx\ny\"\"\"\nt = '''\n'''\nu = 1\n", #"{s@1: "x\ny", t@4: "", u@6: 1}"#),
            // Inline tables: empty, nested, with dotted keys.
            (
                "point = { x = 1, y = 2 }\nempty = {}\nnested = { a.b = 1, c = { d = \"e\" } }\n",
                #"{point@1: {x@1: 1, y@1: 2}, empty@2: {}, nested@3: {a@3: {b@3: 1}, c@3: {d@3: "e"}}}"#
            ),
            // CRLF line breaks, a byte-order mark, whitespace before keys and headers, no final line break.
            ("\u{FEFF}a = 1\r\n  [t]\r\n\tb = \"x\" # c\r\nc = 2", #"{a@1: 1, t@2: {b@3: "x", c@4: 2}}"#),
            // Keys that look like values.
            ("true = 1\ninf = 2\n\"=\" = 3\n", #"{true@1: 1, inf@2: 2, "="@3: 3}"#),
        ])
    func documents(_ text: String, _ expected: String) throws {
        #expect(try Self.parse(text) == expected)
    }

    @Test("each table of an array of tables has the line of its own header; the document's root has none")
    func tableLines() throws {
        let root = try TOMLDocument(parsing: "x = 1\n[[a]]\n\n[[a]]\n[b]\nc = {}\n").root
        #expect(root.line == nil)
        guard case .array(let tables)? = root["a"] else {
            Issue.record("no array a")
            return
        }
        #expect(
            tables.map { value -> Int? in if case .table(let table) = value { table.line } else { nil } } == [2, 4])
        guard case .table(let b)? = root["b"] else {
            Issue.record("no table b")
            return
        }
        #expect(b.line == 5)
        #expect(root.line(of: "b") == 5)
        #expect(b.line(of: "c") == 6)
        #expect(root.keys == ["x", "a", "b"])
        #expect(root.count == 3 && !root.isEmpty)
    }

    @Test(
        "strings: escapes, literal, multi-line and line-ending backslashes",
        arguments: [
            (#""plain""#, "plain"),
            (#""\b\t\n\f\r\"\\""#, "\u{8}\t\n\u{C}\r\"\\"),
            (#""\u00e9 \u00E9 \U0001F600 \u0000""#, "é é 😀 \u{0}"),
            ("\"tab\there\"", "tab\there"),
            ("\"ünïcødé ✓\"", "ünïcødé ✓"),
            (#"'C:\Users\nodejs\templates'"#, #"C:\Users\nodejs\templates"#),
            (#"'<\i\c*\s*>'"#, #"<\i\c*\s*>"#),
            ("''", ""),
            ("\"\"\"\nRoses are red\nViolets are blue\"\"\"", "Roses are red\nViolets are blue"),
            ("\"\"\"\r\nfirst line break trimmed\r\nCRLF kept\"\"\"", "first line break trimmed\r\nCRLF kept"),
            (
                "\"\"\"\nThe quick brown \\\n\n\n  fox jumps \\\n   over the lazy dog.\"\"\"",
                "The quick brown fox jumps over the lazy dog."
            ),
            ("\"\"\"\\\n  trimmed \\  \r\n  too\\\n\"\"\"", "trimmed too"),
            (
                "\"\"\"Here are two quotation marks: \"\". Simple enough.\"\"\"",
                "Here are two quotation marks: \"\". Simple enough."
            ),
            (
                "\"\"\"\"This,\" she said, \"is just a pointless statement.\"\"\"\"",
                "\"This,\" she said, \"is just a pointless statement.\""
            ),
            ("\"\"\"\\\"\"\"\\u0041\"\"\"", "\"\"\"A"),
            (
                "'''\nThe first newline is\ntrimmed in raw strings.\n   All other whitespace\n   is preserved.\n'''",
                "The first newline is\ntrimmed in raw strings.\n   All other whitespace\n   is preserved.\n"
            ),
            (#"''''That,' she said, 'is still pointless.''''"#, #"'That,' she said, 'is still pointless.'"#),
            (#"'''I [dw]on't need \d{2} apples'''"#, #"I [dw]on't need \d{2} apples"#),
            ("\"\"\"\"\"\"", ""),
        ])
    func strings(_ written: String, _ expected: String) throws {
        let root = try TOMLDocument(parsing: "s = \(written)\n").root
        #expect(root["s"] == .string(expected))
    }

    @Test(
        "integers, floats, booleans, dates and times",
        arguments: [
            ("+99", TOMLValue.integer(99)), ("42", .integer(42)), ("0", .integer(0)), ("-17", .integer(-17)),
            ("+0", .integer(0)),
            ("-0", .integer(0)), ("1_000", .integer(1000)), ("5_349_221", .integer(5_349_221)),
            ("1_2_3_4_5", .integer(12345)),
            ("9223372036854775807", .integer(Int.max)), ("-9223372036854775808", .integer(Int.min)),
            ("0xDEADBEEF", .integer(0xDEAD_BEEF)), ("0xdead_beef", .integer(0xDEAD_BEEF)), ("0x00ff", .integer(255)),
            ("0x7FFFFFFFFFFFFFFF", .integer(Int.max)), ("0o01234567", .integer(0o1234567)), ("0o755", .integer(0o755)),
            ("0b11010110", .integer(0b11010110)), ("0b1_0", .integer(2)),
            ("+1.0", .float(1)), ("3.1415", .float(3.1415)), ("-0.01", .float(-0.01)), ("5e+22", .float(5e22)),
            ("1e06", .float(1e6)), ("-2E-2", .float(-0.02)), ("6.626e-34", .float(6.626e-34)),
            ("224_617.445_991_228", .float(224_617.445_991_228)), ("1e1_0", .float(1e10)), ("0e0", .float(0)),
            ("-0.0", .float(-0.0)), ("inf", .float(.infinity)), ("+inf", .float(.infinity)),
            ("-inf", .float(-.infinity)),
            ("true", .bool(true)), ("false", .bool(false)),
            ("1979-05-27T07:32:00Z", .dateTime("1979-05-27T07:32:00Z")),
            ("1979-05-27T00:32:00-07:00", .dateTime("1979-05-27T00:32:00-07:00")),
            ("1979-05-27T00:32:00.999999+07:30", .dateTime("1979-05-27T00:32:00.999999+07:30")),
            ("1979-05-27 07:32:00Z", .dateTime("1979-05-27 07:32:00Z")),
            ("1979-05-27t07:32:00z", .dateTime("1979-05-27t07:32:00z")),
            ("1979-05-27T07:32:00", .dateTime("1979-05-27T07:32:00")),
            ("1979-05-27 00:32:00.5", .dateTime("1979-05-27 00:32:00.5")),
            ("2000-02-29", .date("2000-02-29")), ("1979-05-27", .date("1979-05-27")),
            ("07:32:00", .time("07:32:00")), ("00:32:00.999999", .time("00:32:00.999999")),
            ("23:59:60", .time("23:59:60")),
        ])
    func scalars(_ written: String, _ expected: TOMLValue) throws {
        let root = try TOMLDocument(parsing: "v = \(written) # comment\nw = [\(written), \(written)]\n").root
        #expect(root["v"] == expected)
        #expect(root["w"] == .array([expected, expected]))
    }

    @Test("zeros keep their sign, which == on Double does not see")
    func signedZero() throws {
        let root = try TOMLDocument(parsing: "a = -0.0\nb = +0.0\nc = 0.0\nd = -0e0\n").root
        let signs = ["a", "b", "c", "d"].map { key -> FloatingPointSign? in
            if case .float(let value)? = root[key], value == 0 { value.sign } else { nil }
        }
        #expect(signs == [.minus, .plus, .plus, .minus])
    }

    @Test("nan, signed or not")
    func nan() throws {
        let root = try TOMLDocument(parsing: "a = nan\nb = +nan\nc = -nan\n").root
        for key in ["a", "b", "c"] {
            guard case .float(let value)? = root[key] else {
                Issue.record("\(key) is not a float")
                continue
            }
            #expect(value.isNaN)
        }
    }

    @Test(
        "invalid documents: line, column and what was expected",
        arguments: [
            // Keys and tables defined twice.
            ("a = 1\nb = 2\na = 3\n", 3, 1, "'a' again (defined on line 1)"),
            ("[a]\nx = 1\n[b]\n[a]\n", 4, 2, "[a] again (defined on line 1)"),
            ("a.b = 1\na.b = 2\n", 2, 3, "'a.b' again"),
            ("a = {}\n\"a\" = 1\n", 2, 1, "'a' again"),
            ("a.b = 1\n[a]\n", 2, 2, "dotted keys defined on line 1"),
            ("[a.b]\nx = 1\n[a]\nb.y = 2\n", 4, 1, "under its header on line 1"),
            ("a = 1\n[a.b]\n", 2, 2, "which is an integer (line 1)"),
            ("a = {x = 1}\na.y = 2\n", 2, 1, "complete as written"),
            ("a = {x = 1}\n[a]\n", 2, 2, "complete as written"),
            ("[a]\n[[a]]\n", 2, 3, "which is a table defined on line 1"),
            ("[[a]]\n[a]\n", 2, 2, "expected [[a]]"),
            ("a = []\n[[a]]\n", 2, 3, "which is an array"),
            ("[[a]]\n[a.b]\nc = 1\n[a]\nb.d = 2\n", 4, 2, "expected [[a]]"),
            ("p = { x = 1, x = 2 }\n", 1, 14, "'x' again"),
            // Strings.
            (#"s = "a\qb""#, 1, 7, #"found '\q'"#),
            (#"s = "\u12""#, 1, 6, "4 hexadecimal digits"),
            (#"s = "\uD800""#, 1, 6, "Unicode character"),
            ("s = \"\"\"a \\ b\"\"\"", 1, 10, "a line break after '\\'"),
            ("s = \"abc\nd\"\n", 1, 9, "before the end of the line"),
            ("s = 'abc\n", 1, 9, "before the end of the line"),
            ("s = \"abc", 1, 9, "found the end of the file"),
            ("s = \"\"\"\nabc\n", 1, 5, "\"\"\" to close this multi-line string before the end of the file"),
            ("s = '''abc''\n", 1, 5, "''' to close"),
            ("s = \"x\u{1}\"\n", 1, 7, "control character U+0001"),
            ("s = \"é\u{7F}\"\n", 1, 7, "control character U+007F"),
            ("s = 'a\u{0}'\n", 1, 7, "U+0000"),
            ("# bell\u{7}\n", 1, 7, "no control character in a comment"),
            ("\"\"\"k\"\"\" = 1\n", 1, 1, "multi-line string"),
            // Numbers.
            ("n = 012\n", 1, 5, "without leading zeros"),
            ("n = -03.14\n", 1, 5, "without leading zeros"),
            ("n = 1__0\n", 1, 5, "expected a number"),
            ("n = 1_\n", 1, 5, "expected a number"),
            ("n = 1.\n", 1, 5, "expected a number"),
            ("n = 1.e5\n", 1, 5, "expected a number"),
            ("n = 1e\n", 1, 5, "expected a number"),
            ("n = .5\n", 1, 5, "expected a value"),
            ("n = 0x\n", 1, 5, "expected a number"),
            ("n = 0XFF\n", 1, 5, "expected a number"),
            ("n = +0x10\n", 1, 5, "no sign"),
            ("n = 9223372036854775808\n", 1, 5, "9223372036854775807"),
            ("n = -9223372036854775809\n", 1, 5, "-9223372036854775808"),
            ("n = 0x8000000000000000\n", 1, 5, "9223372036854775807"),
            ("n = 1e400\n", 1, 5, "within range"),
            ("n = Inf\n", 1, 5, "expected a value"),
            ("n = 12abc\n", 1, 5, "'12abc'"),
            // Dates and times.
            ("d = 2021-02-29\n", 1, 5, "valid date"),
            ("d = 1979-13-01\n", 1, 5, "valid date"),
            ("d = 1979-05-27T24:00:00\n", 1, 5, "valid date-time"),
            ("d = 1979-05-27T07:32:00+25:00\n", 1, 5, "valid date-time"),
            ("d = 1979-05-27T07:32\n", 1, 5, "valid date-time"),
            ("t = 07:32\n", 1, 5, "valid time"),
            ("t = 07:32:00Z\n", 1, 5, "valid time"),
            // Structure.
            ("a = [1, 2\n", 1, 5, "']' to close this array before the end of the file"),
            ("a = [1, 2\nb = 3\n", 2, 1, "',' or ']'"),
            ("a = [1,,2]\n", 1, 8, "expected a value"),
            ("a = {x = 1,\ny = 2}\n", 1, 12, "one line"),
            ("a = {x = 1,}\n", 1, 12, "no trailing comma"),
            ("a = {x = 1 y = 2}\n", 1, 12, "',' or '}'"),
            ("name \"x\"\n", 1, 6, "expected '=' after the key 'name'"),
            ("a b = 1\n", 1, 3, "expected '='"),
            ("a =\n", 1, 4, "expected a value"),
            ("a = firefox\n", 1, 5, "a string needs quotes"),
            ("= 1\n", 1, 1, "expected a key"),
            ("a. = 1\n", 1, 4, "expected a key after '.'"),
            ("a = 1 2\n", 1, 7, "end of the line after the value"),
            ("a = \"x\" y\n", 1, 9, "end of the line after the value"),
            ("[t] x\n", 1, 5, "end of the line after the table header"),
            ("[a\n", 1, 3, "']' to close the header [a]"),
            ("[[a]\n", 1, 5, "']]' to close the header [[a]]"),
            ("[]\n", 1, 2, "expected a key"),
            ("a = 1\rb = 2\n", 1, 6, "line feed"),
            ("preference = [\"firefox\"]\nallow-test-agents = tru\n", 2, 21, "expected a value"),
            ("a = " + String(repeating: "[", count: 200), 1, 133, "nested at most 128"),
        ])
    func invalid(_ text: String, _ line: Int, _ column: Int, _ fragment: String) throws {
        let error = try #require(throws: TOMLSyntaxError.self) { try TOMLDocument(parsing: text) }
        #expect(error.line == line && error.column == column, "\(error)")
        #expect(error.message.contains(fragment), "\(error)")
        #expect(error.message.contains("expected"), "\(error)")
        #expect(!error.message.contains("\n"), "one line")
    }

    @Test(
        "the examples in Examples/ parse, with the lines of their keys and headers",
        arguments: ["config.toml", "managed.toml"])
    func examples(_ name: String) throws {
        let text = try String(contentsOf: Self.packageRoot.appendingPathComponent("Examples/\(name)"), encoding: .utf8)
        let root = try TOMLDocument(parsing: text).root
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        func line(startingWith prefix: String) -> Int? { lines.firstIndex { $0.hasPrefix(prefix) }.map { $0 + 1 } }
        #expect(root.line(of: "preference") == line(startingWith: "preference ="))
        #expect(root.line(of: "allow-test-agents") == line(startingWith: "allow-test-agents ="))
        #expect(root["allow-test-agents"] == .bool(false))
        guard case .table(let options)? = root["agent-options"], case .table(let firefox)? = options["firefox"] else {
            Issue.record("no [agent-options.firefox]")
            return
        }
        #expect(options.line(of: "firefox") == line(startingWith: "[agent-options.firefox]"))
        #expect(root.line(of: "agent-options") == line(startingWith: "[agent-options."))
        #expect(firefox.line(of: "profile") == line(startingWith: "profile ="))
        if name == "config.toml" {
            #expect(root["preference"] == .array([.string("firefox"), .string("chromium"), .string("*")]))
            guard case .table(let timeouts)? = root["timeouts"], case .table(let headless)? = options["headless"] else {
                Issue.record("no [timeouts] or [agent-options.headless]")
                return
            }
            #expect(timeouts["authorization"] == .integer(300))
            #expect(root.line(of: "timeouts") == line(startingWith: "[timeouts]"))
            #expect(headless["param.code"] == .string("example-code"))
        }
    }
}
