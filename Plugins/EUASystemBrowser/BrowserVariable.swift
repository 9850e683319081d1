// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// The `$BROWSER` convention: a colon-separated list of commands, tried in order; `%s` in a command is
/// replaced by the URL (`%%` is a literal `%`), otherwise the URL is added as the last argument.
struct BrowserVariable {
    /// Each command as its words (split on spaces; no shell is involved).
    var commands: [[String]]

    init?(_ value: String?) {
        guard let value else { return nil }
        commands = value.split(separator: ":").map { $0.split(separator: " ").map(String.init) }.filter { !$0.isEmpty }
        if commands.isEmpty { return nil }
    }

    /// The argument vector for `command` with `url`.
    static func arguments(_ command: [String], url: String) -> [String] {
        var substituted = false
        let words = command.map { word -> String in
            guard word.contains("%") else { return word }
            var out = ""
            var iterator = word.makeIterator()
            while let character = iterator.next() {
                guard character == "%" else {
                    out.append(character)
                    continue
                }
                switch iterator.next() {
                case "s":
                    out += url
                    substituted = true
                case "%": out.append("%")
                case let other?:
                    out.append("%")
                    out.append(other)
                case nil: out.append("%")
                }
            }
            return out
        }
        return substituted ? words : words + [url]
    }
}
