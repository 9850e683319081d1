import FoundationEssentials

/// The cookies a sign-in sets, kept per host and sent back to the same host (path and expiry
/// ignored: a follow-mode run lasts seconds and talks to one provider).
struct CookieJar {
    private var cookies: [String: [(name: String, value: String)]] = [:]

    mutating func store(_ setCookies: [String], from url: URL) {
        guard let host = url.host?.lowercased() else { return }
        for header in setCookies {
            let pair = header.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { continue }
            let name = Self.trimmed(parts[0])
            let value = Self.trimmed(parts[1])
            guard !name.isEmpty else { continue }
            var list = cookies[host, default: []]
            list.removeAll { $0.name == name }
            let expired = header.lowercased().contains("max-age=0")
            if !expired { list.append((name, value)) }
            cookies[host] = list
        }
    }

    private static func trimmed(_ text: Substring) -> String {
        String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }

    func header(for url: URL) -> String? {
        guard let host = url.host?.lowercased(), let list = cookies[host], !list.isEmpty else { return nil }
        return list.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }
}
