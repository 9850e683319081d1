// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// Why bytes are not a valid HTTP/1.1 message: fixed text that never quotes the message itself.
package struct HTTPParseError: Error, Equatable, CustomStringConvertible, Sendable {
    package var description: String

    package init(_ description: String) {
        self.description = description
    }

    static let bareCR = HTTPParseError("a CR is not followed by LF")
    static let bareLF = HTTPParseError("a line ends in LF without CR")
    static let fieldWithoutColon = HTTPParseError("a header line has no ':'")
    static let badFieldName = HTTPParseError("a header name is empty or holds a character a name may not have")
    static let badFieldValue = HTTPParseError("a header value holds a control character")
    static let obsFold = HTTPParseError("a header line starts with white space (line folding is not accepted)")
}
