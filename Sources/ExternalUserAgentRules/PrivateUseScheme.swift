// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// The rules for a private-use URI scheme redirect (RFC 8252 §7.1) that the `scheme` receiver plugin and
/// `eua scheme` share: what a scheme name may be, where its hand-off socket lives, and the hand-off exchange.
///
/// The exchange on the socket: the handler the desktop runs writes the URL and a line feed; the waiting
/// receiver answers one line, `ok` or `refused: <reason>` (fixed text, never the URL), and closes.
package enum PrivateUseScheme {
    /// The longest URL a hand-off may carry, in bytes; a longer one is refused.
    package static let maximumURLBytes = 8 * 1024
    /// The longest scheme name: the socket path must fit in `sun_path` (108 bytes) under `$XDG_RUNTIME_DIR/eua/`.
    package static let maximumSchemeBytes = 64
    /// How long either side waits for the other's line.
    package static let exchangeSeconds = 5
    /// The receiver's answer when it takes the URL.
    package static let acceptedReply = "ok"
    /// The start of the receiver's answer when it refuses the URL.
    package static let refusedPrefix = "refused: "

    /// Why `scheme` cannot be a private-use redirect scheme, or `nil` when it can: lower-case ASCII letters,
    /// digits, `+`, `-` and `.`, starting with a letter, holding a dot, no empty label (`com.example.app`).
    package static func problem(with scheme: String) -> String? {
        let bytes = Array(scheme.utf8)
        guard !bytes.isEmpty else {
            return "the scheme is empty; use a reverse domain name you control, such as com.example.app"
        }
        guard bytes.count <= maximumSchemeBytes else {
            return "the scheme '\(scheme)' is longer than \(maximumSchemeBytes) characters"
        }
        guard bytes.allSatisfy(isSchemeByte) else {
            return "the scheme '\(scheme)' may hold only lower-case letters a-z, digits, '+', '-' and '.' "
                + "(RFC 3986 §3.1; lower case, as RFC 8252 §7.1 names it)"
        }
        guard (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[0]) else {
            return "the scheme '\(scheme)' must start with a letter (RFC 3986 §3.1)"
        }
        guard bytes.contains(UInt8(ascii: ".")),
            !scheme.split(separator: ".", omittingEmptySubsequences: false).contains("")
        else {
            return "the scheme '\(scheme)' is not a reverse domain name: RFC 8252 §7.1 asks for one you control, "
                + "such as com.example.app for example.com"
        }
        return nil
    }

    /// Whether `uri` names a scheme other than `http` and `https`: it is meant as a private-use redirect URI
    /// (``redirectURIParts(_:)`` says whether it is a valid one).
    package static func isPrivateUse(_ uri: String) -> Bool {
        guard let scheme = scheme(of: uri) else { return false }
        return scheme != "http" && scheme != "https"
    }

    /// The scheme and path of a private-use redirect URI, `<scheme>:/<path>` (`com.example.app:/cb`); throws why
    /// `uri` is not one: a scheme that is not a reverse domain name, `//` (an authority), a query or a fragment.
    package static func redirectURIParts(_ uri: String) throws(RedirectURIProblem) -> (scheme: String, path: String) {
        guard let scheme = scheme(of: uri) else {
            throw RedirectURIProblem(
                description: "it has no scheme; a private-use redirect URI looks like com.example.app:/cb")
        }
        if let problem = problem(with: scheme) { throw RedirectURIProblem(description: problem) }
        guard uri.hasPrefix(scheme + ":") else {
            throw RedirectURIProblem(description: "its scheme must be written in lower case, as \(scheme)")
        }
        let rest = String(uri.dropFirst(scheme.utf8.count + 1))
        guard rest.hasPrefix("/"), !rest.hasPrefix("//"), !rest.contains("?"), !rest.contains("#"),
            rest.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else {
            throw RedirectURIProblem(
                description: "a private-use redirect URI is <scheme>:/<path> with a single '/', no query, "
                    + "fragment, space or control character (RFC 8252 §7.1), such as \(scheme):/oauth2redirect")
        }
        return (scheme, rest)
    }

    /// Why a text is not a private-use redirect URI, in plain words.
    package struct RedirectURIProblem: Error, CustomStringConvertible {
        package var description: String
    }

    /// The scheme of `url` (the part before the first `:`), lower-cased; `nil` when there is none.
    package static func scheme(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":"), colon != url.startIndex else { return nil }
        return String(url[..<colon]).lowercased()
    }

    /// `$XDG_RUNTIME_DIR/eua`, or `nil` when `XDG_RUNTIME_DIR` is not an absolute path.
    package static func socketFolder(runtimeDirectory: String?) -> String? {
        guard let runtimeDirectory, runtimeDirectory.hasPrefix("/") else { return nil }
        return (runtimeDirectory.hasSuffix("/") ? String(runtimeDirectory.dropLast()) : runtimeDirectory) + "/eua"
    }

    /// The hand-off socket for `scheme` in `folder`: `<folder>/scheme-<scheme>.sock`.
    package static func socketPath(folder: String, scheme: String) -> String {
        folder + "/scheme-" + scheme + ".sock"
    }

    /// The desktop entry's file name (and desktop id) for `scheme`: `eua-scheme-<scheme>.desktop`.
    package static func desktopID(scheme: String) -> String {
        "eua-scheme-" + scheme + ".desktop"
    }

    /// The MIME type a desktop maps the scheme with: `x-scheme-handler/<scheme>`.
    package static func mimeType(scheme: String) -> String {
        "x-scheme-handler/" + scheme
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }
}
