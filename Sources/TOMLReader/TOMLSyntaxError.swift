// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// Why a text is not valid TOML, and where.
package struct TOMLSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file, when the document was read with ``TOMLDocument/init(bytes:file:)``.
    package var file: String?
    /// The line, 1-based.
    package var line: Int
    /// The column, 1-based, counted in characters.
    package var column: Int
    /// What was expected there, in one line: `expected '=' after the key 'name', found 'x'`.
    package var message: String
    /// The line as written, trimmed and cut for a message; `nil` when the text is not UTF-8.
    package var excerpt: String?

    /// `file:line:column: message`, or `line L, column C: message` without a file.
    package var description: String {
        file.map { "\($0):\(line):\(column): \(message)" } ?? "line \(line), column \(column): \(message)"
    }
}
