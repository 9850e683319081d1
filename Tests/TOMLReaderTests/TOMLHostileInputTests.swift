// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Testing
@testable import TOMLReader

/// Input written to break the TOML reader: deep nesting, large files, bytes that are not UTF-8, noise.
@Suite("TOML hostile input")
struct TOMLHostileInputTests {
    static func error(_ text: String) throws -> TOMLSyntaxError {
        try #require(throws: TOMLSyntaxError.self) { try TOMLDocument(parsing: text) }
    }

    static func repeated(_ text: String, _ count: Int) -> String { String(repeating: text, count: count) }

    @Test(
        "keys, headers, arrays and inline tables of 9,300 and 100,000 levels end in an error at the 129th",
        arguments: [
            (repeated("a.", 9_300) + "a = 1\n", 1, 257, "key 'a.a.a.…(124 more).a.a' 129 deep"),
            (repeated("a.", 100_000) + "a = 1\n", 1, 257, "key 'a.a.a.…(124 more).a.a' 129 deep"),
            ("[" + repeated("a.", 9_300) + "a]\n", 1, 258, "key 'a.a.a.…(124 more).a.a' 129 deep"),
            ("[" + repeated("a.", 100_000) + "a]\n", 1, 258, "129 deep"),
            ("[[" + repeated("a.", 100_000) + "a]]\n", 1, 259, "129 deep"),
            ("x = {" + repeated("a.", 100_000) + "a = 1}\n", 1, 260, "key 'a.a.a.…(123 more).a.a' 129 deep"),
            ("x = " + repeated("{a=", 100_000) + "1" + repeated("}", 100_000) + "\n", 1, 387, "key 'a' 129 deep"),
            ("x = " + repeated("[", 100_000) + repeated("]", 100_000) + "\n", 1, 133, "an array element 129 deep"),
            ("x = [" + repeated("{a=[", 100_000) + "\n", 1, 259, "key 'a' 129 deep"),
            // Each part of a header and of a dotted key under it counts.
            (
                "[" + repeated("a.", 99) + "a]\n" + repeated("b.", 28) + "b = 1\n", 2, 57,
                "key 'b.b.b.…(24 more).b.b' 129 deep"
            ),
            ("[" + repeated("a.", 127) + "a]\nx = 1\n", 2, 1, "key 'x' 129 deep"),
            // A table of an array of tables is two deep: the array, then the table.
            (
                (1...65).map { "[[" + repeated("a.", $0 - 1) + "a]]\n" }.joined(), 65, 131,
                "a table of [[a.a.a.…(60 more).a.a]] 129 deep"
            ),
        ])
    func tooDeep(_ text: String, _ line: Int, _ column: Int, _ fragment: String) throws {
        let error = try Self.error(text)
        #expect(error.line == line && error.column == column, "\(error)")
        #expect(error.message.contains("expected values nested at most 128 deep"), "\(error)")
        #expect(error.message.contains(fragment), "\(error)")
        #expect(error.message.utf8.count < 300, "the key is shortened: \(error)")
    }

    @Test(
        "the deepest documents allowed are read, compared and freed",
        arguments: [
            repeated("a.", 127) + "a = 1\n",
            "[" + repeated("a.", 127) + "a]\n",
            (1...64).map { "[[" + repeated("a.", $0 - 1) + "a]]\n" }.joined(),
            "x = " + repeated("[", 128) + repeated("]", 128) + "\n",
            "x = " + repeated("{a=", 127) + "1" + repeated("}", 127) + "\n",
        ])
    func deepestAllowed(_ text: String) throws {
        let document = try TOMLDocument(parsing: text)
        #expect(document.root == (try TOMLDocument(parsing: text)).root)
        var value = TOMLValue.table(document.root)
        var depth = 0
        while true {
            switch value {
            case .table(let table) where !table.isEmpty: value = table[table.keys[0]]!
            case .array(let elements) where !elements.isEmpty: value = elements[elements.count - 1]
            default:
                #expect(depth == 128, "\(text.prefix(20))…")
                return
            }
            depth += 1
        }
    }

    @Test("a 160 KB one-line array, 100 KB of deep dotted keys and 17,000 [[a]] headers are read whole")
    func largeDocuments() throws {
        let array = try TOMLDocument(
            parsing: "x = [" + Array(repeating: "1", count: 80_000).joined(separator: ",") + "]\n")
        #expect(array.root["x"] == .array(Array(repeating: .integer(1), count: 80_000)))

        let dotted = (0..<500).map { Self.repeated("a.", 100) + "k\($0) = \($0)\n" }.joined()
        var table = try TOMLDocument(parsing: dotted).root
        for _ in 0..<100 {
            guard case .table(let inner)? = table["a"] else {
                Issue.record("no table a")
                return
            }
            table = inner
        }
        #expect(table.count == 500 && table["k499"] == .integer(499) && table.line(of: "k499") == 500)

        let headers = try TOMLDocument(parsing: Self.repeated("[[a]]\n", 17_000)).root
        guard case .array(let tables)? = headers["a"] else {
            Issue.record("no array a")
            return
        }
        #expect(tables.count == 17_000)
    }

    @Test(
        "bytes that are not UTF-8: the line and column of the first one, and what to do",
        arguments: [
            ([UInt8]("a = 1\ns = \"caf".utf8) + [0xE9] + Array("\"\n".utf8), 2, 9, "0xE9"),
            (Array("# caf".utf8) + [0xC3] + Array("\n".utf8), 1, 6, "0xC3"),
            (Array("k".utf8) + [0x80] + Array(" = 1\n".utf8), 1, 2, "0x80"),
            (Array("a = 'é".utf8) + [0xC0, 0xAF] + Array("'\n".utf8), 1, 7, "0xC0"),
            (Array("a = \"".utf8) + [0xED, 0xA0, 0x80] + Array("\"\n".utf8), 1, 6, "0xED"),
            (Array("a = \"".utf8) + [0xF4, 0x90, 0x80, 0x80] + Array("\"\n".utf8), 1, 6, "0xF4"),
            (Array("\n\na = \"".utf8) + [0xF0, 0x9F, 0x98], 3, 6, "0xF0"),
            ([0xFF, 0xFE] + Array("a\0 \0=\0".utf8), 1, 1, "0xFF"),
            ([0xEF, 0xBB, 0xBF] + Array("x = 1\n".utf8) + [0xFE], 2, 1, "0xFE"),
        ])
    func invalidUTF8(_ bytes: [UInt8], _ line: Int, _ column: Int, _ byte: String) throws {
        let error = try #require(throws: TOMLSyntaxError.self) { try TOMLDocument(bytes: bytes, file: "/etc/x.toml") }
        #expect(error.file == "/etc/x.toml")
        #expect(error.line == line && error.column == column, "\(error)")
        #expect(
            error.description.hasPrefix("/etc/x.toml:\(line):\(column): expected UTF-8 text, found the byte \(byte)"),
            "\(error)")
        #expect(error.message.contains("save the file as UTF-8"))
        #expect(error.excerpt == nil, "no line is shown with replacement characters")
    }

    @Test("UTF-8 of every length and the edges of its ranges is read as written")
    func validUTF8() throws {
        let text = "s = \"\u{80}\u{7FF}\u{800}\u{D7FF}\u{E000}\u{FFFF}\u{10000}\u{10FFFF}é€😀\"\n"
        let root = try TOMLDocument(bytes: Array(text.utf8), file: "x.toml").root
        #expect(root["s"] == .string("\u{80}\u{7FF}\u{800}\u{D7FF}\u{E000}\u{FFFF}\u{10000}\u{10FFFF}é€😀"))
    }

    @Test("a syntax error shows its line, trimmed, cut after 80 characters, control characters escaped")
    func excerpt() throws {
        let error = try Self.error("a = 1\n  b = \u{1B}[31m" + Self.repeated("x", 200) + "\n")
        #expect(error.line == 2)
        #expect(error.excerpt == "b = U+001B[31m" + Self.repeated("x", 71) + "…")
    }

    /// Splitmix64, so the noise is the same in every run.
    struct Noise {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }

    @Test("20,000 documents of TOML-like noise: each is read or refused with a line and column inside the text")
    func noise() throws {
        let texts: [String] = [
            "a", "b.c", ".", "=", " = ", "[", "]", "[[", "]]", "{", "}", ",", "\"", "'", "\"\"\"", "'''", "\\", "\\u00",
            "\\U0010FFFF", "1", "-", "+", "e", "_", "0x", "0o7", ":", "T", " ", "\t", "\n", "\r\n", "\r", "#", "\0",
            "é", "1979-05-27", "07:32:00", "inf", "nan", "true", "9223372036854775808", "1e400", "x = 1\n", "[t]\n",
        ]
        let pieces = texts.map { Array($0.utf8) } + [[0xFF], [0xC3], [0xED, 0xA0, 0x80], [0xEF, 0xBB, 0xBF]]
        var noise = Noise(state: 17)
        var read = 0
        var refused = 0
        for _ in 0..<20_000 {
            var bytes: [UInt8] = []
            for _ in 0..<noise.next(30) { bytes += pieces[noise.next(pieces.count)] }
            do {
                _ = try TOMLDocument(bytes: bytes, file: "noise.toml")
                read += 1
            } catch {
                refused += 1
                let lines = bytes.filter { $0 == UInt8(ascii: "\n") }.count + 1
                #expect(error.line >= 1 && error.line <= lines && error.column >= 1, "\(error) for \(bytes)")
                #expect(!error.message.isEmpty && !error.message.contains("\n"), "\(error)")
            }
        }
        #expect(read > 100 && refused > 100, "read \(read), refused \(refused)")
    }
}
