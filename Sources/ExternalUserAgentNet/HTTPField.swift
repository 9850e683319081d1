// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// One header field (`name: value`), parsed from its line by RFC 9112 §5's grammar.
package struct HTTPField: Equatable, Sendable {
    /// The name as sent (a token; compare it case-insensitively).
    package var name: String
    /// The value without the white space around it; bytes that are not UTF-8 read as U+FFFD.
    package var value: String

    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Parses one header line (without its CRLF): a token name, `:` right after it, and a value free of
    /// control characters but tab. A line that starts with white space (obs-fold) is refused.
    package static func parse(_ line: [UInt8]) -> Result<HTTPField, HTTPParseError> {
        parseParts(line).map { name, value in
            HTTPField(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
        }
    }

    /// The name and value bytes of a header line, checked as ``parse(_:)`` does.
    static func parseParts(_ line: [UInt8]) -> Result<
        (name: ArraySlice<UInt8>, value: ArraySlice<UInt8>), HTTPParseError
    > {
        if let first = line.first, HTTPSyntax.isWhitespace(first) { return .failure(.obsFold) }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return .failure(.fieldWithoutColon) }
        let name = line[..<colon]
        guard !name.isEmpty, name.allSatisfy(HTTPSyntax.isTokenByte) else { return .failure(.badFieldName) }
        let value = line[(colon + 1)...]
        guard value.allSatisfy(HTTPSyntax.isFieldValueByte) else { return .failure(.badFieldValue) }
        return .success((name, HTTPSyntax.trimmed(value)))
    }

    /// Whether the name is `lowercaseName`, ignoring ASCII case.
    package func isNamed(_ lowercaseName: StaticString) -> Bool {
        HTTPSyntax.equalsLowercased(name.utf8, lowercaseName)
    }
}
