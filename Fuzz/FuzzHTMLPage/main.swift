// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUAHeadless
import ExternalUserAgentRules
import FoundationEssentials

/// libFuzzer target: a provider's page as the headless agent's follow mode reads it — the forms it would fill
/// and submit (`HTMLForm`), the button it would press (`SubmitButtonRule`) and the text an error would quote
/// (`PageText`) — with the properties a hostile page must not break:
/// - nothing a terminal acts on reaches the user: the quoted text has no character `TerminalText` would escape;
/// - the quoted text is cut: at most `PageText.limit` characters before escaping, plus the ellipsis;
/// - a form's method is GET or POST, whatever the page says;
/// - each line, as a `Set-Cookie` field of the answer (`CookieJar`, `CookieDate`), leaves at most
///   `CookieJar.maximumCookies` cookies and a `Cookie` header with no control character (no header injection).
/// Time and memory stay linear in the page (libFuzzer's per-input limit and RSS limit catch the rest).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTMLPage(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let html = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    var quoted = [PageText.visibleText(in: html)]
    if let errors = PageText.errorText(in: html) { quoted.append(errors) }
    for text in quoted {
        guard !text.unicodeScalars.contains(where: { TerminalText.needsEscape($0, keepingLineBreaks: false) }) else {
            fatalError("page text quoted in an error holds a character a terminal acts on")
        }
    }
    for form in HTMLForm.forms(in: html) {
        guard form.method == "GET" || form.method == "POST" else {
            fatalError("a form method other than GET or POST: \(form.method)")
        }
        _ = try? SubmitButtonRule.button(in: form, choice: nil, given: [])
        _ = try? SubmitButtonRule.button(
            in: form, choice: SubmitButtonRule.Choice("allow"), given: [("username", "alice")])
    }
    var jar = CookieJar()
    let origin = URL(string: "https://idp.example.com/login/form")!
    for line in html.split(separator: "\n").prefix(64) {
        jar.store(String(line), from: origin, now: Date(timeIntervalSince1970: 1_800_000_000))
        _ = CookieDate.parse(String(line))
    }
    if let header = jar.header(for: origin, now: Date(timeIntervalSince1970: 1_800_000_000)) {
        guard !header.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            fatalError("the Cookie header holds a control character")
        }
    }
    guard jar.cookies.count <= CookieJar.maximumCookies else { fatalError("more cookies kept than the cap") }
    return 0
}
