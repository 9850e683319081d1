// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentNet
import EUATestSupport
import Testing

/// The headless agent's response parser on its own: framing, strictness, limits, and that how TCP cuts
/// the bytes never changes its verdict.
@Suite("headless client: response parser", .onOwnThreads)
struct HTTPResponseParserTests {
    static let bodyLimit = 64

    /// The verdict on `text` fed at once, then the end of the connection.
    func parse(_ text: String, headLimit: Int = 1024) -> Result<HTTPResponse, HTTPParseError> {
        parse(Array(text.utf8), cuts: [], headLimit: headLimit)
    }

    func parse(_ bytes: [UInt8], cuts: [Int], headLimit: Int = 1024) -> Result<HTTPResponse, HTTPParseError> {
        HTTPResponseParser.parse(bytes, cuts: cuts, maximumHeadBytes: headLimit, maximumBodyBytes: Self.bodyLimit)
    }

    func body(_ result: Result<HTTPResponse, HTTPParseError>) -> String? {
        (try? result.get()).map { String(decoding: $0.body, as: UTF8.self) }
    }

    @Test("Content-Length, chunked (extensions, trailers) and read-to-close bodies")
    func framing() throws {
        let fixed = try parse(
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nSet-Cookie: a=1\r\nset-cookie: b=2\r\n\r\nhelloIGNORED"
        ).get()
        #expect(fixed.status == 200 && String(decoding: fixed.body, as: UTF8.self) == "hello")
        #expect(fixed.headers("Set-Cookie") == ["a=1", "b=2"] && fixed.header("content-length") == "5")
        #expect(
            body(
                parse(
                    "HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n5;a=b\r\nhello\r\n2 \r\n, \r\n0\r\nX-T: 1\r\n\r\n"
                )) == "hello, ")
        #expect(body(parse("HTTP/1.0 200 OK\r\n\r\nuntil the end")) == "until the end")
        #expect(body(parse("HTTP/1.1 302 Found\r\nLocation: /x\r\nContent-Length: 0\r\n\r\n")) == "")
        #expect(body(parse("HTTP/1.1 200\r\nContent-Length: 2, 2\r\nContent-Length: 2\r\n\r\nok")) == "ok")
    }

    @Test("interim responses are skipped; 204 and 304 have no body whatever their headers say")
    func noBody() throws {
        let response = try parse(
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
                + "HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n"
        ).get()
        #expect(response.status == 204 && response.body.isEmpty && response.headers.map(\.name) == ["Content-Length"])
        #expect(try parse("HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n").get().status == 304)
    }

    @Test(
        "what breaks the rules is refused with the reason",
        arguments: [
            ("HTTP/1.1 200 OK\nContent-Length: 0\r\n\r\n", "a line ends in LF without CR"),
            ("HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n", "a CR is not followed by LF"),
            ("HTTP/2 200 OK\r\n\r\n", "the status line does not begin with HTTP/1.1 or HTTP/1.0"),
            ("HTTP/1.1 20x OK\r\n\r\n", "the status line has no three-digit status code"),
            ("HTTP/1.1 2000 OK\r\n\r\n", "the status line has no space after its status code"),
            ("HTTP/1.1 600 Odd\r\n\r\n", "the status code 600 is not from 100 to 599"),
            ("HTTP/1.1 200 O\u{1}K\r\n\r\n", "the reason phrase holds a control character"),
            (
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n",
                "the server switched protocols (101), which was not asked for"
            ),
            (
                "HTTP/1.1 200 OK\r\nContent-Length : 1\r\n\r\nx",
                "a header name is empty or holds a character a name may not have"
            ),
            (
                "HTTP/1.1 200 OK\r\nX: 1\r\n  folded\r\n\r\n",
                "a header line starts with white space (line folding is not accepted)"
            ),
            (
                "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
                "the response has both Transfer-Encoding and Content-Length"
            ),
            (
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
                "the response's Transfer-Encoding is not just 'chunked', the only coding read here"
            ),
            ("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "the response's Content-Length is not a number of bytes"),
            (
                "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxy",
                "the response has Content-Length values that disagree"
            ),
            (
                "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n",
                "the response's Content-Length is not a number of bytes"
            ),
            ("HTTP/1.1 200 OK\r\nContent-Length: 65\r\n\r\n", "the response body is larger than 64 bytes"),
            (
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n41\r\n",
                "the response body is larger than 64 bytes"
            ),
            (
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFFFFFF\r\n",
                "the response body is larger than 64 bytes"
            ),
            (
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n0\r\n\r\n",
                "a chunk holds more data than its size says"
            ),
            (
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
                "a chunk-size line does not begin with a hexadecimal size"
            ),
            (
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3 x\r\n",
                "a chunk-size line holds something other than a size and extensions"
            ),
            ("", "the connection closed before a response arrived"),
            ("HTTP/1.1 200 OK\r\nContent-Le", "the connection closed in the middle of the response head"),
            (
                "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
                "the connection closed 7 bytes before the end of the body its Content-Length announced"
            ),
            (
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
                "the connection closed in the middle of the chunked body"
            ),
        ])
    func refused(_ raw: String, _ reason: String) {
        #expect(parse(raw) == .failure(HTTPParseError(reason)))
    }

    @Test("limits: the head, the trailers, a body read to the close")
    func limits() {
        let head = "HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 2000) + "\r\n\r\n"
        #expect(parse(head) == .failure(HTTPParseError("the response head is larger than 1024 bytes")))
        #expect(
            (try? parse(head, headLimit: head.utf8.count).get())?.status == 200, "a head of exactly the limit is read")
        let trailers =
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: " + String(repeating: "t", count: 2000)
            + "\r\n\r\n"
        #expect(parse(trailers) == .failure(HTTPParseError("the trailer fields are larger than 1024 bytes")))
        let untilClose = "HTTP/1.1 200 OK\r\n\r\n" + String(repeating: "b", count: 65)
        #expect(parse(untilClose) == .failure(HTTPParseError("the response body is larger than 64 bytes")))
        let chunkLine = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;" + String(repeating: "e", count: 5000)
        #expect(parse(chunkLine) == .failure(HTTPParseError("a chunk-size line is longer than 4096 bytes")))
    }

    @Test("the verdict is the same whichever way the bytes are cut")
    func cutAnywhere() {
        let inputs = [
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n0\r\nT: 1\r\n\r\n",
            "HTTP/1.0 200 OK\r\n\r\n" + String(repeating: "z", count: 70),
            "HTTP/1.1 200 OK\r\nX: a\nb\r\n\r\n",
            "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort",
        ]
        for input in inputs {
            let bytes = Array(input.utf8)
            let whole = parse(bytes, cuts: [])
            for first in 0...bytes.count {
                let second = min(bytes.count, first + 7)
                #expect(
                    parse(bytes, cuts: [first, second]) == whole,
                    "cut at \(first) and \(second) of \(input.debugDescription)")
            }
        }
    }
}
