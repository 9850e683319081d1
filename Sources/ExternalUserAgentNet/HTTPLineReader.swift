// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// Splits a byte stream into the lines of an HTTP/1.1 head, strictly: every line ends in CRLF, a CR
/// must be followed by LF and a bare LF is refused (RFC 9112 §2.2). Each byte is handled once.
package struct HTTPLineReader: Sendable {
    package enum Step: Equatable, Sendable {
        /// The byte was taken; the line goes on.
        case pending
        /// A whole line, without its CRLF.
        case line([UInt8])
        case invalid(HTTPParseError)
    }

    private var line: [UInt8] = []
    private var afterCR = false

    package init() {}

    /// Takes one byte.
    package mutating func take(_ byte: UInt8) -> Step {
        if afterCR {
            afterCR = false
            guard byte == HTTPSyntax.lf else { return .invalid(.bareCR) }
            let complete = line
            line = []
            return .line(complete)
        }
        switch byte {
        case HTTPSyntax.cr:
            afterCR = true
        case HTTPSyntax.lf:
            return .invalid(.bareLF)
        default:
            line.append(byte)
        }
        return .pending
    }

    /// Whether a line has begun and not ended.
    package var isMidLine: Bool { afterCR || !line.isEmpty }
}
