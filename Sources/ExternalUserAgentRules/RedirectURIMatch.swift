// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The rule a callback URL must meet to belong to a redirect URI: the same scheme, host, port and path
/// (RFC 8252 §7.3, AppAuth's rule); the query and fragment are ignored. A URL with userinfo
/// (`http://user@127.0.0.1/…`) never matches, on either side: a redirect URI has none. The one copy of the
/// rule: the session, the headless agent's follow mode and the loopback receiver all use it.
package enum RedirectURIMatch {
    /// `nil` when `callback` matches `redirectURI`, else a sentence naming the part that differs.
    package static func mismatch(callback: URL, redirectURI: URL) -> String? {
        guard let got = URLComponents(url: callback, resolvingAgainstBaseURL: false),
            let want = URLComponents(url: redirectURI, resolvingAgainstBaseURL: false)
        else {
            return "the callback URL could not be parsed"
        }
        if let part = forbiddenPart(got) {
            return "the callback URL has \(part), which a redirect never has"
        }
        if let part = forbiddenPart(want) {
            return "the redirect URI has \(part), which a redirect URI must not have"
        }
        let gotScheme = got.scheme?.lowercased() ?? ""
        let wantScheme = want.scheme?.lowercased() ?? ""
        if gotScheme != wantScheme {
            return "the callback URL's scheme '\(gotScheme)' is not the redirect URI's '\(wantScheme)'"
        }
        let gotHost = got.host?.lowercased() ?? ""
        let wantHost = want.host?.lowercased() ?? ""
        if gotHost != wantHost {
            return "the callback URL's host '\(gotHost)' is not the redirect URI's '\(wantHost)'"
        }
        let gotPort = got.port ?? defaultPort(scheme: gotScheme)
        let wantPort = want.port ?? defaultPort(scheme: wantScheme)
        if gotPort != wantPort {
            return
                "the callback URL's port \(gotPort.map(String.init) ?? "(none)") is not the redirect URI's \(wantPort.map(String.init) ?? "(none)")"
        }
        let gotPath = normalizedPath(got.percentEncodedPath, scheme: gotScheme)
        let wantPath = normalizedPath(want.percentEncodedPath, scheme: wantScheme)
        if gotPath != wantPath {
            return "the callback URL's path '\(gotPath)' is not the redirect URI's '\(wantPath)'"
        }
        return nil
    }

    /// `userinfo ('user@' before the host)` when `url` has a user or password part (even an empty one), else `nil`.
    package static func forbiddenPart(of url: URL) -> String? {
        URLComponents(url: url, resolvingAgainstBaseURL: false).flatMap(forbiddenPart)
    }

    private static func forbiddenPart(_ components: URLComponents) -> String? {
        components.percentEncodedUser != nil || components.percentEncodedPassword != nil
            ? "userinfo ('user@' before the host)" : nil
    }

    private static func defaultPort(scheme: String) -> Int? {
        switch scheme {
        case "http": 80
        case "https": 443
        default: nil
        }
    }

    /// For http(s) an empty path is `/` (RFC 3986 §6.2.3).
    private static func normalizedPath(_ path: String, scheme: String) -> String {
        if path.isEmpty, scheme == "http" || scheme == "https" { return "/" }
        return path
    }
}
