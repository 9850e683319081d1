// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// A loopback redirect URI as the user registered it with the provider (RFC 8252 §7.3): `http`, the host
/// `127.0.0.1`, `[::1]` or `localhost`, an optional port, and a path (`http://127.0.0.1/callback`).
///
/// The one reading of such a URI: the command line, the configuration file and the loopback receiver use
/// it, so the redirect the receiver accepts and the `redirect_uri` sent to the provider are the same text.
/// With a port, that text is the registered one byte for byte; without one, the port the receiver got is
/// put in after the host (`uri(port:)`), which RFC 8252 §7.3 lets a provider accept for loopback IPs.
package struct LoopbackRedirectURI: Sendable, Hashable, CustomStringConvertible {
    /// Which loopback host the URI names.
    package enum Host: Sendable, Hashable {
        case ipv4, ipv6, localhost
    }

    /// The URI exactly as given.
    package let text: String
    package let host: Host
    /// The port written in the URI; `nil`: any free port.
    package let port: Int?
    /// The path as written (percent-encoded), possibly empty.
    package let path: String
    /// `http://HOST` as written (scheme and host in the given case).
    private let origin: String

    package var description: String { text }

    /// The path the browser asks for: the written one, `/` for an empty one.
    package var requestPath: String { path.isEmpty ? "/" : path }

    /// Reads `text`; throws a sentence saying what is wrong and what to register instead.
    package init(parsing text: String) throws(Problem) {
        self.text = text
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw Problem(
                "it holds a space, a control or a non-ASCII character; write it percent-encoded, exactly as registered")
        }
        guard let colon = text.firstIndex(of: ":") else {
            throw Problem("it is not an absolute URI; write it as registered, like http://127.0.0.1/callback")
        }
        let scheme = text[..<colon].lowercased()
        guard scheme == "http" else {
            if scheme == "https" {
                throw Problem(
                    "it is https: a loopback redirect is plain http (RFC 8252 §7.3; the traffic never leaves "
                        + "this machine) — register http://127.0.0.1/… with the provider")
            }
            throw Problem(
                "its scheme is '\(scheme)', not http: the loopback receiver catches http://127.0.0.1, "
                    + "http://[::1] or http://localhost redirects only")
        }
        let afterScheme = text[text.index(after: colon)...]
        guard afterScheme.hasPrefix("//") else {
            throw Problem("it has no host: write http://127.0.0.1/… (or [::1], localhost)")
        }
        let rest = afterScheme.dropFirst(2)
        if rest.contains("#") {
            throw Problem("it has a fragment ('#'), which a redirect URI must not have (RFC 6749 §3.1.2)")
        }
        if rest.contains("?") {
            throw Problem(
                "it has a query ('?'), which the loopback receiver does not support; register a URI without one")
        }
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        if authority.contains("@") {
            throw Problem("it has userinfo ('user@' before the host), which a redirect URI never has")
        }
        let hostText: Substring
        let portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw Problem("its IPv6 host has no closing ']'") }
            hostText = authority[...close]
            let after = authority[authority.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else {
                throw Problem("something follows its host '\(hostText)'")
            }
            portText = after.isEmpty ? nil : after.dropFirst()
        } else if let portColon = authority.firstIndex(of: ":") {
            hostText = authority[..<portColon]
            portText = authority[authority.index(after: portColon)...]
        } else {
            hostText = authority
            portText = nil
        }
        switch hostText.lowercased() {
        case "127.0.0.1": host = .ipv4
        case "[::1]": host = .ipv6
        case "localhost": host = .localhost
        default:
            throw Problem(
                "its host '\(hostText)' is not a loopback host: use 127.0.0.1, [::1] or localhost "
                    + "(RFC 8252 §7.3); a loopback receiver can only catch a redirect to this machine")
        }
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy(\.isASCIIDigit),
                let number = Int(portText), (1...65535).contains(number)
            else {
                throw Problem(
                    "its port '\(portText)' is not a port from 1 to 65535; leave the port out for any free port")
            }
            port = number
        } else {
            port = nil
        }
        path = String(rest[authorityEnd...])
        origin = String(text[..<colon]) + "://" + String(hostText)
    }

    /// The redirect URI with `port`: the registered text itself when it has a port (which must then be `port`),
    /// else `http://HOST:PORT/path`.
    package func uri(port actual: Int) -> String {
        port == nil ? origin + ":\(actual)" + path : text
    }

    /// What is wrong with a redirect URI, in one sentence.
    package struct Problem: Error, Sendable, CustomStringConvertible {
        package var description: String
        init(_ description: String) { self.description = description }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
