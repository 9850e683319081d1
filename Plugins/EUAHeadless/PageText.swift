// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentRules

/// The words a provider's page shows a person, for the errors follow mode reports: text only (no markup,
/// no scripts, nothing hidden), whitespace collapsed, cut to ``limit`` characters, and escaped for a terminal
/// with ``TerminalText`` (a page's bytes must never move the user's cursor).
package enum PageText {
    /// The most characters of a page's text an error carries.
    package static let limit = 400

    /// What the page's error elements say — elements whose `class` or `id` holds `error`, `alert`, `danger`,
    /// `invalid`, `warning` or `feedback`, or with `role="alert"` (Django's `errorlist`, Keycloak's
    /// `kc-feedback-text`) — or `nil` when there is none or it is empty.
    package static func errorText(in html: String) -> String? {
        let text = collect(html, onlyErrors: true)
        return text.isEmpty ? nil : shown(text)
    }

    /// Everything the page's body shows (its title when the body shows nothing), ready for an error.
    package static func visibleText(in html: String) -> String {
        let text = collect(html, onlyErrors: false)
        return shown(text.isEmpty ? title(in: html) : text)
    }

    /// Text collapsed, cut and escaped for a terminal.
    static func shown(_ text: String) -> String {
        let collapsed = collapsed(text)
        let cut = collapsed.count > limit ? String(collapsed.prefix(limit)) + "…" : collapsed
        return TerminalText.escaped(cut)
    }

    /// Runs of whitespace as one space, none at either end.
    static func collapsed(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// `html` without its tags (a `<button>`'s label).
    static func stripTags(_ html: String) -> String {
        var tokenizer = HTMLTokenizer(html)
        var text = ""
        while let token = tokenizer.next() {
            if case .text(let part) = token { text += part + " " }
        }
        return text
    }

    private static let voidElements: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link",
        "meta", "source", "track", "wbr",
    ]
    /// Elements whose content a person does not read as page text.
    private static let unseenElements: Set<String> = [
        "head", "title", "script", "style", "template", "noscript",
        "select", "option", "textarea", "svg",
    ]
    private static let errorMarkers = ["error", "alert", "danger", "invalid", "warning", "feedback"]

    private struct Open {
        var name: String
        var hidden: Bool
        var error: Bool
    }

    /// The page's text; with `onlyErrors`, the text of its outermost error elements, each once.
    private static func collect(_ html: String, onlyErrors: Bool) -> String {
        var tokenizer = HTMLTokenizer(html)
        var stack: [Open] = []
        var segments: [String] = [""]
        while let token = tokenizer.next() {
            switch token {
            case .text(let text):
                guard !stack.contains(where: \.hidden) else { continue }
                if !onlyErrors || stack.contains(where: \.error) { segments[segments.count - 1] += text }
            case .tag(let name, let attributes, let closing):
                // A tag separates words, as a browser's layout would.
                segments[segments.count - 1] += " "
                if closing {
                    if let index = stack.lastIndex(where: { $0.name == name }) { stack.removeSubrange(index...) }
                    continue
                }
                guard !voidElements.contains(name) else { continue }
                let marks = ((attributes["class"] ?? "") + " " + (attributes["id"] ?? "")).lowercased()
                let style = (attributes["style"] ?? "").lowercased().filter { $0 != " " }
                let hidden =
                    unseenElements.contains(name) || attributes["hidden"] != nil
                    || attributes["aria-hidden"]?.lowercased() == "true" || style.contains("display:none")
                    || style.contains("visibility:hidden")
                let error = attributes["role"]?.lowercased() == "alert" || errorMarkers.contains { marks.contains($0) }
                if error, !stack.contains(where: \.error) { segments.append("") }
                stack.append(Open(name: name, hidden: hidden, error: error))
            }
        }
        var seen: Set<String> = []
        return segments.map(collapsed).filter { !$0.isEmpty && seen.insert($0).inserted }.joined(separator: " ")
    }

    private static func title(in html: String) -> String {
        var tokenizer = HTMLTokenizer(html)
        var inTitle = false
        var text = ""
        while let token = tokenizer.next() {
            switch token {
            case .tag(name: "title", _, let closing): inTitle = !closing
            case .text(let part) where inTitle: text += part
            default: continue
            }
        }
        return text
    }
}
