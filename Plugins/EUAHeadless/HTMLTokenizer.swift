// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// A minimal HTML tokenizer: tags with their attributes and the text between them, enough to find forms
/// and a page's visible text.
struct HTMLTokenizer {
    enum Token: Equatable {
        /// A start tag (`closing` false) or end tag; names and attribute keys are lowercased.
        case tag(name: String, attributes: [String: String], closing: Bool)
        /// Text between tags, character references decoded (never inside `<script>` or `<style>`).
        case text(String)
    }

    private let scalars: [Unicode.Scalar]
    private var index = 0

    init(_ html: String) {
        scalars = Array(html.unicodeScalars)
    }

    mutating func next() -> Token? {
        while index < scalars.count {
            guard scalars[index] == "<" else {
                let start = index
                index = position(of: "<", from: index + 1) ?? scalars.count
                return .text(Self.decodeEntities(String(String.UnicodeScalarView(scalars[start..<index]))))
            }
            if starts(with: "<!--") {
                index = position(of: "-->", from: index + 4).map { $0 + 3 } ?? scalars.count
                continue
            }
            if starts(with: "<!") || starts(with: "<?") {
                index = position(of: ">", from: index).map { $0 + 1 } ?? scalars.count
                continue
            }
            index += 1
            let closing = index < scalars.count && scalars[index] == "/"
            if closing { index += 1 }
            let name = readName().lowercased()
            guard !name.isEmpty else { continue }
            let attributes = closing ? [:] : readAttributes()
            if closing { index = position(of: ">", from: index).map { $0 + 1 } ?? scalars.count }
            if !closing, name == "script" || name == "style" {
                _ = rawText(until: name)
                continue
            }
            return .tag(name: name, attributes: attributes, closing: closing)
        }
        return nil
    }

    /// Everything up to `</name>` (case-insensitive), which is consumed too.
    mutating func rawText(until name: String) -> String {
        let start = index
        var end = scalars.count
        var scan = index
        while let lt = position(of: "<", from: scan) {
            if lt + 1 < scalars.count, scalars[lt + 1] == "/" {
                let candidate = String(
                    String.UnicodeScalarView(scalars[(lt + 2)..<min(scalars.count, lt + 2 + name.count)]))
                if candidate.lowercased() == name {
                    end = lt
                    break
                }
            }
            scan = lt + 1
        }
        index = end < scalars.count ? (position(of: ">", from: end).map { $0 + 1 } ?? scalars.count) : scalars.count
        return String(String.UnicodeScalarView(scalars[start..<end]))
    }

    private mutating func readName() -> String {
        var name = String.UnicodeScalarView()
        while index < scalars.count, !Self.isSpace(scalars[index]), scalars[index] != ">", scalars[index] != "/" {
            name.append(scalars[index])
            index += 1
        }
        return String(name)
    }

    private mutating func readAttributes() -> [String: String] {
        var attributes: [String: String] = [:]
        while index < scalars.count {
            while index < scalars.count, Self.isSpace(scalars[index]) || scalars[index] == "/" { index += 1 }
            guard index < scalars.count else { break }
            if scalars[index] == ">" {
                index += 1
                break
            }
            var key = String.UnicodeScalarView()
            while index < scalars.count, !Self.isSpace(scalars[index]), !["=", ">", "/"].contains(scalars[index]) {
                key.append(scalars[index])
                index += 1
            }
            while index < scalars.count, Self.isSpace(scalars[index]) { index += 1 }
            var value = ""
            if index < scalars.count, scalars[index] == "=" {
                index += 1
                while index < scalars.count, Self.isSpace(scalars[index]) { index += 1 }
                if index < scalars.count, scalars[index] == "\"" || scalars[index] == "'" {
                    let quote = scalars[index]
                    let end = position(of: quote, from: index + 1) ?? scalars.count
                    value = String(String.UnicodeScalarView(scalars[(index + 1)..<end]))
                    index = min(end + 1, scalars.count)
                } else {
                    var bare = String.UnicodeScalarView()
                    while index < scalars.count, !Self.isSpace(scalars[index]), scalars[index] != ">" {
                        bare.append(scalars[index])
                        index += 1
                    }
                    value = String(bare)
                }
            }
            let name = String(key).lowercased()
            if !name.isEmpty, attributes[name] == nil { attributes[name] = Self.decodeEntities(value) }
            if key.isEmpty { index = min(index + 1, scalars.count) }
        }
        return attributes
    }

    private func starts(with text: String) -> Bool {
        let pattern = Array(text.unicodeScalars)
        guard index + pattern.count <= scalars.count else { return false }
        return Array(scalars[index..<(index + pattern.count)]) == pattern
    }

    private func position(of text: String, from start: Int) -> Int? {
        let pattern = Array(text.unicodeScalars)
        var i = start
        while i + pattern.count <= scalars.count {
            if scalars[i] == pattern[0], Array(scalars[i..<(i + pattern.count)]) == pattern { return i }
            i += 1
        }
        return nil
    }

    private func position(of scalar: Unicode.Scalar, from start: Int) -> Int? {
        var i = start
        while i < scalars.count {
            if scalars[i] == scalar { return i }
            i += 1
        }
        return nil
    }

    static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "\u{0C}"
    }

    /// Decodes the character references a form's values use.
    static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        let named: [String: String] = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}"]
        var result = ""
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            result += rest[..<ampersand]
            let after = rest[rest.index(after: ampersand)...]
            if let semicolon = after.prefix(10).firstIndex(of: ";") {
                let entity = String(after[..<semicolon])
                var replacement: String?
                if entity.hasPrefix("#x") || entity.hasPrefix("#X") {
                    replacement = UInt32(entity.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map {
                        String(Character($0))
                    }
                } else if entity.hasPrefix("#") {
                    replacement = UInt32(entity.dropFirst()).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
                } else {
                    replacement = named[entity]
                }
                if let replacement {
                    result += replacement
                    rest = after[after.index(after: semicolon)...]
                    continue
                }
            }
            result += "&"
            rest = after
        }
        return result + rest
    }
}
