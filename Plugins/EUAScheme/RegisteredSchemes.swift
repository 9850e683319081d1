// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif
import ExternalUserAgentPluginKit
import ExternalUserAgentRules

/// The schemes `eua scheme register` left desktop entries for, and the default the user's `mimeapps.list` names
/// for each: a cheap read of two files for the capability report (`eua scheme status` asks GIO itself).
enum RegisteredSchemes {
    /// `[{"scheme","desktopEntry","default","registered"}]`, from `$XDG_DATA_HOME/applications` and the user's
    /// `mimeapps.list` (`$XDG_CONFIG_HOME`, then `$XDG_DATA_HOME/applications`).
    static func report() -> JSONValue {
        let home = getenv("HOME").map { String(cString: $0) }
        let data =
            getenv("XDG_DATA_HOME").map { String(cString: $0) }.flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? home.map { $0 + "/.local/share" }
        let config =
            getenv("XDG_CONFIG_HOME").map { String(cString: $0) }.flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? home.map { $0 + "/.config" }
        guard let data else { return .array([]) }
        let applications = data + "/applications"
        let defaults = [config.map { $0 + "/mimeapps.list" }, applications + "/mimeapps.list"]
            .compactMap { $0 }.map(defaultApplications).reduce(into: [String: String]()) {
                $0.merge($1) { first, _ in first }
            }
        return .array(
            entries(in: applications).map { scheme in
                let id = PrivateUseScheme.desktopID(scheme: scheme)
                let owner = defaults[PrivateUseScheme.mimeType(scheme: scheme)]
                return .object([
                    "scheme": .string(scheme),
                    "desktopEntry": .string(applications + "/" + id),
                    "default": owner.map(JSONValue.string) ?? .null,
                    "registered": .bool(owner == id),
                ])
            })
    }

    /// The schemes of `eua-scheme-<scheme>.desktop` files in `folder`.
    private static func entries(in folder: String) -> [String] {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var schemes: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasPrefix("eua-scheme-"), name.hasSuffix(".desktop") else { continue }
            let scheme = String(name.dropFirst("eua-scheme-".count).dropLast(".desktop".count))
            if PrivateUseScheme.problem(with: scheme) == nil { schemes.append(scheme) }
        }
        return schemes.sorted()
    }

    /// The `[Default Applications]` of one `mimeapps.list` for `x-scheme-handler/…` types: type → first desktop id.
    private static func defaultApplications(_ path: String) -> [String: String] {
        guard let file = fopen(path, "re") else { return [:] }
        defer { fclose(file) }
        var defaults: [String: String] = [:]
        var inDefaults = false
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        var lines = 0
        while getline(&line, &capacity, file) > 0, let line, lines < 10_000 {
            lines += 1
            let text = String(cString: line).trimmingWhitespace
            if text.hasPrefix("[") {
                inDefaults = text == "[Default Applications]"
                continue
            }
            guard inDefaults, text.hasPrefix("x-scheme-handler/"), let equals = text.firstIndex(of: "=") else {
                continue
            }
            let first = text[text.index(after: equals)...].split(separator: ";").first.map(String.init)
            if let first, defaults[String(text[..<equals])] == nil { defaults[String(text[..<equals])] = first }
        }
        return defaults
    }
}

extension String {
    fileprivate var trimmingWhitespace: String {
        var text = Substring(self)
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        while let first = text.first, first.isWhitespace { text = text.dropFirst() }
        return String(text)
    }
}
