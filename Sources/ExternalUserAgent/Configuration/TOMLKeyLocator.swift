/// Finds the line where a key was written in TOML text that TOMLKit has already parsed.
///
/// Used only for messages: it follows `[table]` headers and `key = value` lines (dotted and quoted
/// keys included), and falls back to the line of the nearest enclosing key or table it can find.
struct TOMLKeyLocator {
    private var lines: [(path: [String], line: Int)] = []

    init(text: String) {
        var header: [String] = []
        var number = 0
        var inMultiline: String?
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            let line = raw.trimmingWhitespace()
            if let delimiter = inMultiline {
                if line.contains(delimiter) { inMultiline = nil }
                continue
            }
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                let isArray = line.hasPrefix("[[")
                let inner = line.dropFirst(isArray ? 2 : 1).prefix { $0 != "]" }
                header = Self.keyPath(String(inner))
                lines.append((header, number))
                continue
            }
            guard let equals = Self.firstUnquoted("=", in: line) else { continue }
            let key = Self.keyPath(String(line[..<equals]))
            lines.append((header + key, number))
            let value = line[line.index(after: equals)...].trimmingWhitespace()
            for delimiter in ["\"\"\"", "'''"] where value.hasPrefix(delimiter)
                && !value.dropFirst(3).contains(delimiter) {
                inMultiline = delimiter
            }
        }
    }

    /// The line of `path`, or of its nearest enclosing key or table.
    func line(of path: [String]) -> Int? {
        var target = path
        while !target.isEmpty {
            if let found = lines.first(where: { $0.path == target }) { return found.line }
            target.removeLast()
        }
        return nil
    }

    private static func firstUnquoted(_ character: Character, in text: String) -> String.Index? {
        var quote: Character?
        for index in text.indices {
            let current = text[index]
            if let open = quote {
                if current == open { quote = nil }
            } else if current == "\"" || current == "'" {
                quote = current
            } else if current == character {
                return index
            }
        }
        return nil
    }

    /// `a."b.c".d` as `["a", "b.c", "d"]`.
    static func keyPath(_ text: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var quote: Character?
        for character in text {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "." {
                parts.append(current.trimmingWhitespace())
                current = ""
            } else {
                current.append(character)
            }
        }
        parts.append(current.trimmingWhitespace())
        return parts
    }
}
