// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// Reads one HTTP/1.1 response (RFC 9112) to a GET or POST from bytes as they arrive: the status line, the
/// header fields, then a body framed by `Content-Length`, by chunked transfer coding, or by the end of the
/// connection. Interim (1xx) responses are skipped; 204 and 304 have no body.
///
/// Strictly linear: each byte of the head is looked at once and body bytes are copied once. Strict: lines end
/// in CRLF; `HTTP/1.x NNN reason`; header names are tokens with `:` right after them, no line folding;
/// `Content-Length` is digits (several must agree) and never comes with `Transfer-Encoding`; `chunked` is the
/// only transfer coding. Limits: `maximumHeadBytes` for the status lines and header fields together (and for
/// the trailer fields), `maximumBodyBytes` for the body. Bytes after the response are ignored.
package struct HTTPResponseParser: Sendable {
    package static let defaultMaximumHeadBytes = 80 * 1024
    /// The most bytes a chunk-size line (with its extensions) may have.
    static let maximumChunkLineBytes = 4096

    package let maximumHeadBytes: Int
    package let maximumBodyBytes: Int

    private enum State: Sendable {
        case head
        case fixedBody(remaining: Int)
        case untilClose
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case complete(HTTPResponse)
        case failed(HTTPParseError)
    }

    private var state = State.head
    private var lines = HTTPLineReader()
    private var headBytes = 0
    private var lineBytes = 0
    private var received = 0
    private var status: Int?
    private var fields: [HTTPField] = []
    private var body: [UInt8] = []

    package init(maximumHeadBytes: Int = defaultMaximumHeadBytes, maximumBodyBytes: Int) {
        self.maximumHeadBytes = maximumHeadBytes
        self.maximumBodyBytes = maximumBodyBytes
    }

    /// Takes the next bytes of the connection: the response once it is complete, `nil` while more is needed.
    package mutating func feed(_ bytes: ArraySlice<UInt8>) throws(HTTPParseError) -> HTTPResponse? {
        received += bytes.count
        var index = bytes.startIndex
        while true {
            switch state {
            case .complete(let response): return response
            case .failed(let error): throw error
            default: break
            }
            guard index < bytes.endIndex else { return nil }
            switch state {
            case .fixedBody(let remaining):
                let count = min(remaining, bytes.endIndex - index)
                body += bytes[index..<(index + count)]
                index += count
                state = remaining == count ? .complete(response()) : .fixedBody(remaining: remaining - count)
            case .chunkData(let remaining):
                let count = min(remaining, bytes.endIndex - index)
                body += bytes[index..<(index + count)]
                index += count
                state = remaining == count ? .chunkDataEnd : .chunkData(remaining: remaining - count)
            case .untilClose:
                let count = bytes.endIndex - index
                guard body.count + count <= maximumBodyBytes else {
                    state = .failed(bodyTooLarge)
                    continue
                }
                body += bytes[index...]
                index = bytes.endIndex
            default:
                let byte = bytes[index]
                index += 1
                take(byte)
            }
        }
    }

    /// The response when the peer has closed the connection: complete, or an error saying where it was cut.
    package mutating func finish() throws(HTTPParseError) -> HTTPResponse {
        switch state {
        case .complete(let response):
            return response
        case .failed(let error):
            throw error
        case .untilClose:
            let response = response()
            state = .complete(response)
            return response
        case .head where received == 0:
            throw HTTPParseError("the connection closed before a response arrived")
        case .head:
            throw HTTPParseError("the connection closed in the middle of the response head")
        case .fixedBody(let remaining):
            throw HTTPParseError(
                "the connection closed \(remaining) bytes before the end of the body its Content-Length announced")
        default:
            throw HTTPParseError("the connection closed in the middle of the chunked body")
        }
    }

    private var bodyTooLarge: HTTPParseError {
        HTTPParseError("the response body is larger than \(maximumBodyBytes) bytes")
    }

    private func response() -> HTTPResponse {
        HTTPResponse(status: status ?? 0, headers: fields, body: body)
    }

    /// One byte of a line-based part: the head, a chunk-size line, the CRLF after chunk data, the trailers.
    private mutating func take(_ byte: UInt8) {
        switch state {
        case .head:
            headBytes += 1
            guard headBytes <= maximumHeadBytes else {
                state = .failed(HTTPParseError("the response head is larger than \(maximumHeadBytes) bytes"))
                return
            }
        case .trailers:
            headBytes += 1
            guard headBytes <= maximumHeadBytes else {
                state = .failed(HTTPParseError("the trailer fields are larger than \(maximumHeadBytes) bytes"))
                return
            }
        default:
            lineBytes += 1
            guard lineBytes <= Self.maximumChunkLineBytes else {
                state = .failed(HTTPParseError("a chunk-size line is longer than \(Self.maximumChunkLineBytes) bytes"))
                return
            }
        }
        switch lines.take(byte) {
        case .pending:
            return
        case .invalid(let error):
            state = .failed(error)
        case .line(let line):
            lineBytes = 0
            do throws(HTTPParseError) {
                try take(line)
            } catch {
                state = .failed(error)
            }
        }
    }

    private mutating func take(_ line: [UInt8]) throws(HTTPParseError) {
        switch state {
        case .head:
            if status == nil {
                status = try Self.statusCode(line)
            } else if line.isEmpty {
                try endOfHead()
            } else {
                fields.append(try HTTPField.parse(line).get())
            }
        case .chunkSize:
            let size = try chunkSize(line)
            state = size == 0 ? .trailers : .chunkData(remaining: size)
            if size == 0 { headBytes = 0 }
        case .chunkDataEnd:
            guard line.isEmpty else { throw HTTPParseError("a chunk holds more data than its size says") }
            state = .chunkSize
        case .trailers:
            if line.isEmpty {
                state = .complete(response())
            } else {
                _ = try HTTPField.parse(line).get()
            }
        default:
            return
        }
    }

    /// `HTTP/1.1 200 OK` (the reason may be empty or missing): the status code, 100–599.
    private static func statusCode(_ line: [UInt8]) throws(HTTPParseError) -> Int {
        let version = line.prefix(8)
        guard version.elementsEqual("HTTP/1.1".utf8) || version.elementsEqual("HTTP/1.0".utf8) else {
            throw HTTPParseError("the status line does not begin with HTTP/1.1 or HTTP/1.0")
        }
        let rest = line.dropFirst(8)
        guard rest.count >= 4, rest.first == HTTPSyntax.space else {
            throw HTTPParseError("the status line has no three-digit status code")
        }
        let digits = rest.dropFirst().prefix(3)
        guard digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            throw HTTPParseError("the status line has no three-digit status code")
        }
        let code = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        guard (100...599).contains(code) else { throw HTTPParseError("the status code \(code) is not from 100 to 599") }
        let reason = rest.dropFirst(4)
        if let first = reason.first, first != HTTPSyntax.space {
            throw HTTPParseError("the status line has no space after its status code")
        }
        guard reason.allSatisfy(HTTPSyntax.isFieldValueByte) else {
            throw HTTPParseError("the reason phrase holds a control character")
        }
        return code
    }

    /// Decides how the body is framed, once the head has ended.
    private mutating func endOfHead() throws(HTTPParseError) {
        let code = status ?? 0
        if (100...199).contains(code) {
            guard code != 101 else {
                throw HTTPParseError("the server switched protocols (101), which was not asked for")
            }
            status = nil
            fields = []
            return
        }
        if code == 204 || code == 304 {
            state = .complete(response())
            return
        }
        let codings = values(of: "transfer-encoding")
        let lengths = values(of: "content-length")
        if !codings.isEmpty {
            guard lengths.isEmpty else {
                throw HTTPParseError("the response has both Transfer-Encoding and Content-Length")
            }
            guard codings.count == 1, HTTPSyntax.equalsLowercased(codings[0], "chunked") else {
                throw HTTPParseError(
                    "the response's Transfer-Encoding is not just 'chunked', the only coding read here")
            }
            state = .chunkSize
        } else if let first = lengths.first {
            let length = try Self.contentLength(first)
            for other in lengths.dropFirst() {
                guard try Self.contentLength(other) == length else {
                    throw HTTPParseError("the response has Content-Length values that disagree")
                }
            }
            guard length <= maximumBodyBytes else { throw bodyTooLarge }
            state = length == 0 ? .complete(response()) : .fixedBody(remaining: length)
        } else {
            state = .untilClose
        }
    }

    /// The comma-separated elements of every field named `name`, trimmed, empty ones dropped.
    private func values(of name: StaticString) -> [ArraySlice<UInt8>] {
        fields.filter { $0.isNamed(name) }.flatMap { field in
            Array(field.value.utf8).split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
                .map(HTTPSyntax.trimmed).filter { !$0.isEmpty }
        }
    }

    private static func contentLength(_ text: ArraySlice<UInt8>) throws(HTTPParseError) -> Int {
        guard !text.isEmpty, text.count <= 18, text.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else {
            throw HTTPParseError("the response's Content-Length is not a number of bytes")
        }
        return text.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    /// `1*HEXDIG [ BWS ";" extensions ]`: the size, at most the body limit.
    private func chunkSize(_ line: [UInt8]) throws(HTTPParseError) -> Int {
        var size = 0
        var index = line.startIndex
        while index < line.endIndex, let digit = Self.hexValue(line[index]) {
            size = size * 16 + digit
            guard body.count + size <= maximumBodyBytes else { throw bodyTooLarge }
            index += 1
        }
        guard index > line.startIndex else {
            throw HTTPParseError("a chunk-size line does not begin with a hexadecimal size")
        }
        let rest = HTTPSyntax.trimmed(line[index...])
        guard rest.isEmpty || (rest.first == UInt8(ascii: ";") && rest.allSatisfy(HTTPSyntax.isFieldValueByte)) else {
            throw HTTPParseError("a chunk-size line holds something other than a size and extensions")
        }
        return size
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A")) + 10
        default: nil
        }
    }
}

extension HTTPResponseParser {
    /// The verdict on `bytes` arriving in pieces that end at `cuts` (offsets, ascending), then the connection
    /// closing: what a client reading a socket gets. For tests and the fuzz target, which check that the
    /// verdict does not depend on where the bytes were cut.
    package static func parse(
        _ bytes: [UInt8], cuts: [Int], maximumHeadBytes: Int = defaultMaximumHeadBytes,
        maximumBodyBytes: Int
    ) -> Result<HTTPResponse, HTTPParseError> {
        var parser = HTTPResponseParser(maximumHeadBytes: maximumHeadBytes, maximumBodyBytes: maximumBodyBytes)
        var start = 0
        do throws(HTTPParseError) {
            for end in cuts + [bytes.count] {
                if let response = try parser.feed(bytes[start..<end]) { return .success(response) }
                start = end
            }
            return .success(try parser.finish())
        } catch {
            return .failure(error)
        }
    }
}
