// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentRules

/// The words of a provider's answer that is not JSON — an HTML error page, or plain text — made fit for a
/// message: the visible text only (no tags, scripts or styles), entities decoded, white space collapsed,
/// escaped for a terminal and cut at ``limit`` characters. `nil` when nothing readable is left.
enum ProviderPageText {
    /// The most characters a message quotes from a page.
    static let limit = 300

    static func words(of body: Data, contentType: String?) -> String? {
        let text = String(decoding: body.prefix(64 * 1024), as: UTF8.self)
        let type = contentType?.lowercased() ?? ""
        let isHTML = type.contains("html") || text.drop(while: \.isWhitespace).hasPrefix("<")
        let visible = isHTML ? Self.visibleText(ofHTML: text) : text
        let words = visible.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard !words.isEmpty else { return nil }
        let cut = words.count > limit ? String(words.prefix(limit)) + "…" : words
        return TerminalText.escaped(cut)
    }

    /// The text between the tags, without `script`, `style` and `head` elements but with the `title`, each tag a space.
    static func visibleText(ofHTML html: String) -> String {
        var out = ""
        var rest = Substring(html)
        while let open = rest.firstIndex(of: "<") {
            out += decodeEntities(rest[..<open])
            guard let close = rest[open...].firstIndex(of: ">") else {
                rest = rest[rest.endIndex...]
                break
            }
            let tag = rest[rest.index(after: open)..<close].lowercased()
            rest = rest[rest.index(after: close)...]
            let name = tag.prefix { $0.isLetter || $0.isNumber }
            if ["script", "style"].contains(name) {
                // Skip to the element's end tag.
                rest = Self.after(endTagOf: String(name), in: rest)
            }
            out += " "
        }
        out += decodeEntities(rest)
        return out
    }

    /// What follows the end tag `</name…>` in `text` (any case); nothing when there is none.
    static func after(endTagOf name: String, in text: Substring) -> Substring {
        var rest = text
        while let open = rest.firstIndex(of: "<") {
            let tail = rest[rest.index(after: open)...]
            rest = tail
            guard tail.first == "/" else { continue }
            let tagName = tail.dropFirst().prefix { $0.isLetter || $0.isNumber }.lowercased()
            guard tagName == name else { continue }
            guard let close = tail.firstIndex(of: ">") else { return text[text.endIndex...] }
            return tail[tail.index(after: close)...]
        }
        return text[text.endIndex...]
    }

    /// `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`, `&nbsp;`, dashes, `&hellip;` and numeric references; others as written.
    static func decodeEntities(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        var out = ""
        var rest = text
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let after = rest[rest.index(after: amp)...]
            guard let semi = after.prefix(10).firstIndex(of: ";") else {
                out += "&"
                rest = after
                continue
            }
            let name = String(after[..<semi])
            let named = [
                "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ", "mdash": "—",
                "ndash": "–", "hellip": "…",
            ]
            if let value = named[name] {
                out += value
            } else if name.hasPrefix("#"),
                let code = name.hasPrefix("#x") || name.hasPrefix("#X")
                    ? UInt32(name.dropFirst(2), radix: 16) : UInt32(name.dropFirst()),
                let scalar = Unicode.Scalar(code)
            {
                out.unicodeScalars.append(scalar)
            } else {
                out += "&" + name + ";"
            }
            rest = after[after.index(after: semi)...]
        }
        return out + rest
    }
}
