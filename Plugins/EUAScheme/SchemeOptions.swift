// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentPluginKit
import ExternalUserAgentRules

/// The scheme receiver's options (all strings, as they cross the ABI).
///
/// - `scheme=com.example.app`: the private-use scheme (required; a reverse domain name, RFC 8252 §7.1).
/// - `path=/cb`: the redirect path; default `/oauth2redirect`.
/// - `handoff-timeout-ms=N` (default 5000): how long a handler has to send its URL.
/// - `expect=sign-in|sign-out`: `sign-out` takes the post-logout redirect of an end-session request, which
///   carries the expected `state` only.
struct SchemeOptions: Sendable {
    var scheme: String
    var path = "/oauth2redirect"
    var signOut = false
    var handOffTimeoutMilliseconds = PrivateUseScheme.exchangeSeconds * 1000

    init(options: [String: String]) throws(PluginError) {
        guard let scheme = options["scheme"] else {
            throw PluginError.invalidOptions(
                "the scheme receiver needs the option scheme=<reverse domain name>, "
                    + "such as scheme=com.example.app (a redirect URI com.example.app:/cb gives it)")
        }
        if let problem = PrivateUseScheme.problem(with: scheme) {
            throw PluginError.invalidOptions("option scheme=\(scheme): \(problem)")
        }
        self.scheme = scheme
        for (key, value) in options {
            switch key {
            case "scheme":
                continue
            case "path":
                guard value.hasPrefix("/"), !value.hasPrefix("//"),
                    value.utf8.allSatisfy({
                        $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#")
                    })
                else {
                    throw PluginError.invalidOptions(
                        "option path=\(value) must start with a single '/' and hold no '?', '#', "
                            + "space or control character")
                }
                path = value
            case "expect":
                guard value == "sign-in" || value == "sign-out" else {
                    throw PluginError.invalidOptions("option expect=\(value) must be sign-in or sign-out")
                }
                signOut = value == "sign-out"
            case "handoff-timeout-ms":
                handOffTimeoutMilliseconds = try PluginError.wholeNumber(
                    key, value, in: 50...60_000, unit: "milliseconds")
            default:
                throw PluginError.invalidOptions(
                    "option '\(key)' is unknown to the scheme receiver; known: scheme, path, "
                        + "handoff-timeout-ms, expect")
            }
        }
    }

    /// The redirect URI the flow registers: `<scheme>:<path>`.
    var redirectURI: String { scheme + ":" + path }
}
