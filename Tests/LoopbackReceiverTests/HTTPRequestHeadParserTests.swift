// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentNet
import EUATestSupport
import Testing

/// The loopback receiver's request-head parser on its own: the grammar it holds to, its limit, and that
/// how TCP cuts the bytes never changes its verdict.
@Suite("Loopback receiver: request head parser", .onOwnThreads)
struct HTTPRequestHeadParserTests {
    static let limit = 16 * 1024

    func parse(_ text: String, limit: Int = limit) -> HTTPRequestHeadParser.Outcome {
        var parser = HTTPRequestHeadParser(limit: limit)
        return parser.feed(Array(text.utf8)[...])
    }

    @Test("a browser's request: method, target, version and every Host value")
    func browserRequest() {
        let raw =
            "GET /cb?code=x&state=y HTTP/1.1\r\nHost: 127.0.0.1:8400\r\nUser-Agent: Mozilla/5.0 (X11)\r\n"
            + "Accept: text/html,*/*;q=0.8\r\nhOsT:\t[::1]:8400 \r\nCookie: a=\u{E9}\r\n\r\n"
        #expect(
            parse(raw)
                == .head(
                    HTTPRequestHead(
                        method: "GET", target: "/cb?code=x&state=y", minorVersion: 1,
                        hostValues: ["127.0.0.1:8400", "[::1]:8400"])))
        #expect(
            parse("HEAD / HTTP/1.0\r\n\r\n")
                == .head(HTTPRequestHead(method: "HEAD", target: "/", minorVersion: 0, hostValues: [])))
    }

    @Test(
        "what breaks the grammar is refused with the rule it broke",
        arguments: [
            ("GET / HTTP/1.1\nHost: a\r\n\r\n", "a line ends in LF without CR"),
            ("GET /cb?code=a\rb HTTP/1.1\r\n\r\n", "a CR is not followed by LF"),
            ("\r\nGET / HTTP/1.1\r\n\r\n", "the request begins with an empty line"),
            ("GET  / HTTP/1.1\r\n\r\n", "the request line is not 'METHOD TARGET HTTP/1.1' with single spaces"),
            ("GET / HTTP/1.1 \r\n\r\n", "the request line is not 'METHOD TARGET HTTP/1.1' with single spaces"),
            ("GET\r\n\r\n", "the request line is not 'METHOD TARGET HTTP/1.1' with single spaces"),
            ("G(T / HTTP/1.1\r\n\r\n", "the method is empty or holds a character a method may not have"),
            (
                "GET /caf\u{E9} HTTP/1.1\r\n\r\n",
                "the request target is empty or holds a character that is not visible ASCII"
            ),
            (
                "GET /\u{7F} HTTP/1.1\r\n\r\n",
                "the request target is empty or holds a character that is not visible ASCII"
            ),
            ("GET / HTTP/9.9\r\n\r\n", "the version is not HTTP/1.1 or HTTP/1.0"),
            ("GET / http/1.1\r\n\r\n", "the version is not HTTP/1.1 or HTTP/1.0"),
            ("GET / HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n", "a header line has no ':'"),
            (
                "GET / HTTP/1.1\r\nHost : 127.0.0.1\r\n\r\n",
                "a header name is empty or holds a character a name may not have"
            ),
            ("GET / HTTP/1.1\r\n: x\r\n\r\n", "a header name is empty or holds a character a name may not have"),
            ("GET / HTTP/1.1\r\nHost: 127.0.0.1\u{0}\r\n\r\n", "a header value holds a control character"),
            (
                "GET / HTTP/1.1\r\nX: a\r\n folded\r\n\r\n",
                "a header line starts with white space (line folding is not accepted)"
            ),
        ])
    func invalid(_ raw: String, _ reason: String) {
        #expect(parse(raw) == .invalid(HTTPParseError(reason)))
    }

    @Test("the limit counts every byte of the head, its final CRLF included")
    func limit() {
        let head = "GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 100) + "\r\n\r\n"
        let size = head.utf8.count
        #expect(parse(head, limit: size) == .head(HTTPRequestHead(method: "GET", target: "/", hostValues: [])))
        #expect(parse(head, limit: size - 1) == .tooLarge)
        #expect(parse("GET /" + String(repeating: "c", count: 40_000)) == .tooLarge, "an endless request line")
        #expect(
            parse("GET / HTTP/1.1\r\n" + String(repeating: "X-H: v\r\n", count: 3000)) == .tooLarge, "a header flood")
    }

    @Test("the verdict is the same whichever way the bytes are cut")
    func cutAnywhere() {
        let inputs = [
            "GET /cb?code=x HTTP/1.1\r\nHost: 127.0.0.1:1\r\nHost: b\r\n\r\n", "GET / HTTP/1.1\r\nX: a\nb\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: a", "GARBAGE\r\n\r\n", "GET / HTTP/1.1\r\nX: \u{1}\r\n\r\n",
        ]
        for input in inputs {
            let bytes = Array(input.utf8)
            let whole = parse(input)
            for cut in 0...bytes.count {
                var parser = HTTPRequestHeadParser(limit: Self.limit)
                var outcome = parser.feed(bytes[..<cut])
                if outcome == .needMore { outcome = parser.feed(bytes[cut...]) }
                #expect(outcome == whole, "cut at \(cut) of \(input.debugDescription)")
            }
            var byteByByte = HTTPRequestHeadParser(limit: Self.limit)
            var outcome = HTTPRequestHeadParser.Outcome.needMore
            for index in bytes.indices where outcome == .needMore { outcome = byteByByte.feed(bytes[index...index]) }
            #expect(outcome == whole, "byte by byte: \(input.debugDescription)")
        }
    }

    @Test("it stops at the end of the head: a pipelined second request and a body are never read")
    func stopsAtHeadEnd() {
        let first = "GET /a HTTP/1.1\r\nHost: h\r\n\r\n"
        var parser = HTTPRequestHeadParser(limit: Self.limit)
        let outcome = parser.feed(Array((first + "GET /b HTTP/1.1\r\nHost: h\r\n\r\nbody").utf8)[...])
        #expect(outcome == .head(HTTPRequestHead(method: "GET", target: "/a", hostValues: ["h"])))
        #expect(parser.bytesConsumed == first.utf8.count)
        #expect(parser.feed(Array("more".utf8)[...]) == outcome, "a decided parser keeps its verdict")
    }

    @Test("a connection that closes mid-head is a broken request; one that sent nothing is not a request")
    func endOfStream() {
        var parser = HTTPRequestHeadParser(limit: Self.limit)
        #expect(parser.outcomeAtEnd == .needMore)
        _ = parser.feed(Array("GET / HTTP/1.1\r\nHost: a".utf8)[...])
        #expect(parser.outcomeAtEnd == .invalid(HTTPParseError("the connection closed before the request head ended")))
    }
}
