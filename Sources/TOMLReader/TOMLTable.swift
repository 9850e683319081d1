// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// A TOML table: its keys in the order they were written, each with its value and its line.
package struct TOMLTable: Sendable, Equatable {
    /// The keys, in the order they were first written.
    package private(set) var keys: [String] = []
    private var entries: [String: Entry] = [:]
    /// Where the table was defined (1-based): its `[header]` or `[[header]]`, the dotted key that made it
    /// (`a.b = 1`), or its `{` for an inline table; `nil` for the document itself.
    package var line: Int?

    private struct Entry: Sendable, Equatable {
        var value: TOMLValue
        var line: Int
    }

    init(line: Int? = nil) {
        self.line = line
    }

    /// The value of `key`, if the table has it.
    package subscript(key: String) -> TOMLValue? { entries[key]?.value }

    /// The line (1-based) where `key` was written; for a table, the line of its header.
    package func line(of key: String) -> Int? { entries[key]?.line }

    package var count: Int { keys.count }
    package var isEmpty: Bool { keys.isEmpty }

    /// Adds `key`, which the caller has checked is new.
    mutating func append(_ key: String, _ value: TOMLValue, line: Int) {
        keys.append(key)
        entries[key] = Entry(value: value, line: line)
    }
}
