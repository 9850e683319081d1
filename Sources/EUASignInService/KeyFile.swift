// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// A desktop-entry style key file (`.flatpak-info`): `[Group]` lines and `key=value` lines; comments and blank
/// lines skipped. Only what identification reads: no escapes, no locales.
struct KeyFile {
    private var values: [String: [String: String]] = [:]

    init(_ text: String) {
        var group = ""
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingSpaces()
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                group = String(line.dropFirst().dropLast())
            } else if let equals = line.firstIndex(of: "=") {
                let key = String(line[..<equals].trimmingSpaces())
                // The first value of a key is kept.
                if values[group]?[key] == nil {
                    values[group, default: [:]][key] = String(line[line.index(after: equals)...].trimmingSpaces())
                }
            }
        }
    }

    /// The value of `key` in `group`.
    subscript(group: String, key: String) -> String? { values[group]?[key] }
}

extension Substring {
    func trimmingSpaces() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" || first == "\r" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text = text.dropLast() }
        return text
    }
}
