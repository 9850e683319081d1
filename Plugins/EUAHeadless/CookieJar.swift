// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import FoundationEssentials

/// The cookies of one follow-mode flow, kept in memory for both transports (plain sockets for `http`, libcurl
/// for `https`), so a flow that moves from `http` to `https` keeps its session.
///
/// RFC 6265 §5's storage and sending rules, reduced to what a sign-in of a few seconds needs: host-only and
/// `Domain` cookies, `Path`, `Secure` (set and sent over `https` only), and `Max-Age`/`Expires` (to delete).
/// There is no public-suffix list, so a `Domain` must be the request's host or a parent of it with an inner dot;
/// the jar lives for one flow and is never written to disk. Hostile sizes are capped: a cookie over
/// ``maximumCookieBytes`` is dropped, and past ``maximumCookies`` the oldest cookie goes.
package struct CookieJar {
    package struct Cookie: Equatable {
        var name: String
        var value: String
        /// The host (host-only) or the domain it is sent to, lower case.
        var domain: String
        var hostOnly: Bool
        var path: String
        var secure: Bool
        var expires: Date?
    }

    /// The longest `name=value` kept.
    static let maximumCookieBytes = 4096
    /// The most cookies kept at once.
    package static let maximumCookies = 50

    package private(set) var cookies: [Cookie] = []

    /// An empty jar.
    package init() {}

    /// Stores what one `Set-Cookie` field of the answer from `url` says; a field that breaks a rule is ignored.
    package mutating func store(_ field: String, from url: URL, now: Date = Date()) {
        guard let host = url.host?.lowercased(), !host.isEmpty else { return }
        let parts = field.split(separator: ";", omittingEmptySubsequences: false)
        guard let pair = parts.first, let equals = pair.firstIndex(of: "=") else { return }
        let name = Self.trimmed(pair[..<equals])
        let value = Self.trimmed(pair[pair.index(after: equals)...])
        guard !name.isEmpty, name.utf8.count + value.utf8.count <= Self.maximumCookieBytes,
            !(name + value).unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0 == ";" })
        else { return }
        var cookie = Cookie(
            name: name, value: value, domain: host, hostOnly: true, path: Self.defaultPath(url),
            secure: false, expires: nil)
        var maxAge: Int?
        for attribute in parts.dropFirst() {
            let pieces = attribute.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = Self.trimmed(pieces[0]).lowercased()
            let text = pieces.count > 1 ? Self.trimmed(pieces[1]) : ""
            switch key {
            case "domain":
                let domain = String(text.drop { $0 == "." }).lowercased()
                guard !domain.isEmpty else { continue }
                guard domain == host || (host.hasSuffix("." + domain) && domain.contains(".") && !Self.isAddress(host))
                else { return }
                cookie.domain = domain
                cookie.hostOnly = false
            case "path" where text.hasPrefix("/"):
                cookie.path = text
            case "secure":
                cookie.secure = true
            case "max-age":
                if let seconds = Int(text) { maxAge = seconds }
            case "expires":
                if let date = CookieDate.parse(text) { cookie.expires = date }
            default:
                continue
            }
        }
        if let maxAge {
            cookie.expires = maxAge <= 0 ? .distantPast : now.addingTimeInterval(Double(min(maxAge, 400 * 86_400)))
        }
        guard !cookie.secure || url.scheme == "https" else { return }
        cookies.removeAll { $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path }
        if let expires = cookie.expires, expires <= now { return }
        cookies.append(cookie)
        if cookies.count > Self.maximumCookies { cookies.removeFirst(cookies.count - Self.maximumCookies) }
    }

    /// The `Cookie` field for a request to `url`, longest paths first; `nil` when no cookie applies.
    package func header(for url: URL, now: Date = Date()) -> String? {
        guard let host = url.host?.lowercased() else { return nil }
        var path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? "/"
        if path.isEmpty { path = "/" }
        let sent = cookies.enumerated().filter { _, cookie in
            (cookie.hostOnly ? host == cookie.domain : host == cookie.domain || host.hasSuffix("." + cookie.domain))
                && Self.pathMatches(path, cookie.path) && (!cookie.secure || url.scheme == "https")
                && (cookie.expires.map { $0 > now } ?? true)
        }.sorted {
            $0.element.path.count != $1.element.path.count
                ? $0.element.path.count > $1.element.path.count : $0.offset < $1.offset
        }
        guard !sent.isEmpty else { return nil }
        return sent.map { "\($0.element.name)=\($0.element.value)" }.joined(separator: "; ")
    }

    /// RFC 6265 §5.1.4: the request path up to its last `/`, or `/`.
    private static func defaultPath(_ url: URL) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
        guard path.hasPrefix("/"), let last = path.lastIndex(of: "/"), last != path.startIndex else { return "/" }
        return String(path[..<last])
    }

    private static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return requestPath.count == cookiePath.count || cookiePath.hasSuffix("/")
            || requestPath.dropFirst(cookiePath.count).first == "/"
    }

    private static func isAddress(_ host: String) -> Bool {
        host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
    }

    private static func trimmed(_ text: Substring) -> String {
        String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
