// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// What a request's head says, as far as a loopback listener needs it.
package struct HTTPRequestHead: Equatable, Sendable {
    /// The method as sent (methods are case-sensitive: `GET`, not `get`).
    package var method: String
    /// The request target exactly as sent: visible ASCII only.
    package var target: String
    /// The minor version: `1` for HTTP/1.1, `0` for HTTP/1.0.
    package var minorVersion: Int
    /// The value of every `Host` field, in order, without the white space around it.
    package var hostValues: [String]
    /// Every header field in order, when the parser was asked to keep them (``HTTPRequestHeadParser/init(limit:keepsFields:)``).
    package var fields: [HTTPField]

    package init(method: String, target: String, minorVersion: Int = 1, hostValues: [String], fields: [HTTPField] = [])
    {
        self.method = method
        self.target = target
        self.minorVersion = minorVersion
        self.hostValues = hostValues
        self.fields = fields
    }
}

/// Reads one HTTP/1.1 request head (RFC 9112 §2–§5) from bytes as they arrive: the request line and the
/// header fields up to the empty line. The body and anything after the head are never read.
///
/// Strictly linear: each byte is looked at once, and at most `limit` bytes are taken. Strict: lines end in
/// CRLF; the request line is `METHOD SP TARGET SP HTTP/1.x` with a token method and a visible-ASCII
/// target; header names are tokens with `:` right after them; no line folding; no control character
/// but tab in a value. Once it has an outcome other than `needMore`, it keeps it.
package struct HTTPRequestHeadParser: Sendable {
    package enum Outcome: Equatable, Sendable {
        /// The head is not complete yet.
        case needMore
        /// The whole head.
        case head(HTTPRequestHead)
        /// The bytes break the grammar: a 400.
        case invalid(HTTPParseError)
        /// More than `limit` bytes without the end of the head: a 431.
        case tooLarge
    }

    /// The most bytes a head may have, its final CRLF included.
    package let limit: Int
    /// Whether every header field is kept in the head (a server that reads them); else only `Host`.
    package let keepsFields: Bool
    private var lines = HTTPLineReader()
    private var consumed = 0
    private var head: HTTPRequestHead?
    private var outcome = Outcome.needMore

    package init(limit: Int, keepsFields: Bool = false) {
        self.limit = limit
        self.keepsFields = keepsFields
    }

    /// How many bytes have been taken as part of the head (0: nothing has arrived).
    package var bytesConsumed: Int { consumed }

    /// Takes the next bytes of the connection and says where the head stands.
    package mutating func feed(_ bytes: ArraySlice<UInt8>) -> Outcome {
        guard outcome == .needMore else { return outcome }
        for byte in bytes {
            consumed += 1
            guard consumed <= limit else {
                outcome = .tooLarge
                return outcome
            }
            switch lines.take(byte) {
            case .pending:
                continue
            case .invalid(let error):
                outcome = .invalid(error)
                return outcome
            case .line(let line):
                if let decided = take(line) {
                    outcome = decided
                    return outcome
                }
            }
        }
        return outcome
    }

    /// The outcome when the peer closes now: the head is cut short (or never began: `needMore`).
    package var outcomeAtEnd: Outcome {
        guard outcome == .needMore, consumed > 0 else { return outcome }
        return .invalid(HTTPParseError("the connection closed before the request head ended"))
    }

    /// One whole line: the request line, a header line, or the empty line that ends the head.
    private mutating func take(_ line: [UInt8]) -> Outcome? {
        guard head != nil else {
            switch Self.requestLine(line) {
            case .success(let parsed):
                head = parsed
                return nil
            case .failure(let error):
                return .invalid(error)
            }
        }
        if line.isEmpty, let head { return .head(head) }
        switch HTTPField.parseParts(line) {
        case .failure(let error):
            return .invalid(error)
        case .success(let (name, value)):
            // In place (`head!`), so the lists are not copied once per line.
            if HTTPSyntax.equalsLowercased(name, "host") {
                head!.hostValues.append(String(decoding: value, as: UTF8.self))
            }
            if keepsFields {
                head!.fields.append(
                    HTTPField(
                        name: String(decoding: name, as: UTF8.self),
                        value: String(decoding: value, as: UTF8.self)))
            }
            return nil
        }
    }

    private static func requestLine(_ line: [UInt8]) -> Result<HTTPRequestHead, HTTPParseError> {
        guard !line.isEmpty else { return .failure(HTTPParseError("the request begins with an empty line")) }
        let parts = line.split(separator: HTTPSyntax.space, omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            return .failure(HTTPParseError("the request line is not 'METHOD TARGET HTTP/1.1' with single spaces"))
        }
        guard !parts[0].isEmpty, parts[0].allSatisfy(HTTPSyntax.isTokenByte) else {
            return .failure(HTTPParseError("the method is empty or holds a character a method may not have"))
        }
        guard !parts[1].isEmpty, parts[1].allSatisfy(HTTPSyntax.isVisibleASCII) else {
            return .failure(
                HTTPParseError("the request target is empty or holds a character that is not visible ASCII"))
        }
        let minor: Int
        switch String(decoding: parts[2], as: UTF8.self) {
        case "HTTP/1.1": minor = 1
        case "HTTP/1.0": minor = 0
        default: return .failure(HTTPParseError("the version is not HTTP/1.1 or HTTP/1.0"))
        }
        return .success(
            HTTPRequestHead(
                method: String(decoding: parts[0], as: UTF8.self),
                target: String(decoding: parts[1], as: UTF8.self),
                minorVersion: minor, hostValues: []))
    }
}
