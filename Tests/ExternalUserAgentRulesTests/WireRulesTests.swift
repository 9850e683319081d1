// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentRules
import FoundationEssentials
import Testing

/// The rules host and plugins share, each in its one place.
@Suite("wire rules")
struct WireRulesTests {
    @Test("form escaping: unreserved characters stay, a space is +, every other UTF-8 byte is %XX")
    func escape() {
        #expect(FormCoding.escape("aZ09-._~") == "aZ09-._~")
        #expect(FormCoding.escape("a b&c=d/é+%") == "a+b%26c%3Dd%2F%C3%A9%2B%25")
        #expect(FormCoding.encode([("k 1", "v&"), ("x", "")]) == "k+1=v%26&x=")
    }

    @Test("lenient decoding keeps a broken escape; strict decoding refuses it and invalid UTF-8")
    func decode() {
        #expect(FormCoding.decode("a+b%26c%C3%A9") == "a b&cé")
        #expect(FormCoding.decode("100%") == "100%")
        #expect(FormCoding.decode("%zz%4") == "%zz%4")
        #expect(FormCoding.strictDecode("a+b%26") == "a b&")
        for broken in ["%zz", "%4", "%", "%C3%28", "a%0"] {
            #expect(FormCoding.strictDecode(broken) == nil, "\(broken)")
        }
    }

    @Test("strict pairs: empty pieces skipped, a missing '=' is an empty value, an empty name refuses the query")
    func pairs() throws {
        let pairs = try #require(FormCoding.strictPairs("code=a%2Fb&&state=s+t&flag"))
        #expect(pairs.map(\.name) == ["code", "state", "flag"])
        #expect(pairs.map(\.value) == ["a/b", "s t", ""])
        #expect(FormCoding.strictPairs("=x") == nil)
        #expect(FormCoding.strictPairs("a=%zz") == nil)
        #expect(FormCoding.strictPairs("")?.isEmpty == true)
    }

    @Test("escape then decode gives the text back, for every kind of character")
    func roundTrip() {
        for text in ["", "plain", "a b+c", "é€😀", "\u{0}\u{1B}[31m", "%25%", "=&?#/"] {
            #expect(FormCoding.decode(FormCoding.escape(text)) == text)
            #expect(FormCoding.strictDecode(FormCoding.escape(text)) == text)
        }
    }

    @Test("HTML escaping leaves no markup and no way out of a quoted attribute")
    func html() {
        #expect(
            HTMLText.escaped(#"<a href="x" onclick='y'>&</a>"#)
                == "&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;")
        #expect(HTMLText.escaped("plain é") == "plain é")
    }

    @Test("terminal escaping: C0, DEL, C1 and bidi controls are shown, never acted on")
    func terminal() {
        #expect(TerminalText.escaped("a\u{1B}[31mb\u{7F}\u{9B}\u{202E}") == #"a\x1b[31mb\x7f\x9b\u{202e}"#)
        #expect(TerminalText.escaped("line\nnext", keepingLineBreaks: true) == "line\nnext")
        #expect(TerminalText.escaped("line\nnext") == #"line\x0anext"#)
        #expect(TerminalText.escaped("\u{1B}", style: .json) == #"\u001b"#)
    }

    @Test("redirect matching: scheme, host, port and path; query ignored; userinfo never matches")
    func redirect() throws {
        let uri = try #require(URL(string: "http://127.0.0.1:8400/cb"))
        func mismatch(_ text: String) -> String? {
            RedirectURIMatch.mismatch(callback: URL(string: text)!, redirectURI: uri)
        }
        #expect(mismatch("http://127.0.0.1:8400/cb?code=x&state=y") == nil)
        #expect(mismatch("HTTP://127.0.0.1:8400/cb") == nil)
        #expect(mismatch("http://127.0.0.1:8401/cb")?.contains("port") == true)
        #expect(mismatch("http://127.0.0.1:8400/cb/")?.contains("path") == true)
        #expect(mismatch("https://127.0.0.1:8400/cb")?.contains("scheme") == true)
        #expect(mismatch("http://[::1]:8400/cb")?.contains("host") == true)
        #expect(mismatch("http://user@127.0.0.1:8400/cb")?.contains("userinfo") == true)
        #expect(
            RedirectURIMatch.mismatch(
                callback: URL(string: "http://127.0.0.1/")!,
                redirectURI: URL(string: "http://127.0.0.1")!) == nil, "an empty http path is /")
    }
}
