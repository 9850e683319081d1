// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentPluginKit
import ExternalUserAgentRules

/// The loopback receiver's options (all strings, as they cross the ABI).
///
/// - `port=N`: a fixed port (clients registered with one need it); default: the OS picks.
/// - `port-range=A-B`: the first free port in the range.
/// - `path=/cb`: the redirect path; default: `/cb-` and 22 random characters.
/// - `redirect-uri=URI`: the redirect URI as registered (``LoopbackRedirectURI``): its host, path and port
///   (when it has one; else `port`, `port-range` or any free port). Not with `path`, nor with `port`,
///   `port-range` when it has a port; `[::1]` means `ipv6=true`, and `localhost` listens on both families.
/// - `ipv6=auto|true|false`: `auto` (default) also listens on [::1] when it exists; `true` puts [::1]
///   in the redirect URI (and requires it); `false` listens on 127.0.0.1 only.
/// - `success-url=URL`, `failure-url=URL`: redirect the browser there instead of showing our page.
/// - `success-html=TEXT`, `failure-html=TEXT`: the app's own page.
/// - `expect=sign-in|sign-out`: `sign-in` (default) takes a redirect with a `code` or an `error`; `sign-out` the
///   post-logout redirect of an end-session request, which carries `state` only (the host must give the
///   expected state), and shows a "signed out" page.
/// - `max-connections=N` (default 128), `request-timeout-ms=N` (default 5000): time a client has to send
///   its whole request head before it is dropped.
struct LoopbackOptions: Sendable {
    enum IPv6: String, Sendable, CaseIterable { case auto, `true`, `false` }

    var ports: ClosedRange<Int>?
    var path: String?
    var redirectURI: LoopbackRedirectURI?
    var ipv6: IPv6 = .auto
    var successURL: String?
    var failureURL: String?
    var successHTML: String?
    var failureHTML: String?
    var maxConnections = 128
    var requestTimeoutMilliseconds = 5000
    /// The post-logout redirect of a sign-out (`expect=sign-out`) rather than a sign-in's.
    var signOut = false

    static let maxHeadBytes = 16 * 1024
    static let maxTargetLength = 8 * 1024

    init(options: [String: String]) throws {
        for (key, value) in options {
            switch key {
            case "port":
                guard let port = Int(value), (1...65535).contains(port) else {
                    throw PluginError.invalidOptions("option port=\(value) must be a port number from 1 to 65535")
                }
                guard ports == nil else { throw PluginError.invalidOptions("give either port or port-range, not both") }
                ports = port...port
            case "port-range":
                let parts = value.split(separator: "-").compactMap { Int($0) }
                guard parts.count == 2, (1...65535).contains(parts[0]), (parts[0]...65535).contains(parts[1]) else {
                    throw PluginError.invalidOptions(
                        "option port-range=\(value) must look like 8400-8410 (ports 1–65535, low first)")
                }
                guard ports == nil else { throw PluginError.invalidOptions("give either port or port-range, not both") }
                ports = parts[0]...parts[1]
            case "path":
                guard value.hasPrefix("/"), !value.contains("?"), !value.contains("#"), !value.contains(" ") else {
                    throw PluginError.invalidOptions(
                        "option path=\(value) must start with '/' and hold no '?', '#' or space")
                }
                path = value
            case "redirect-uri":
                do throws(LoopbackRedirectURI.Problem) {
                    redirectURI = try LoopbackRedirectURI(parsing: value)
                } catch {
                    throw PluginError.invalidOptions("option redirect-uri=\(value): \(error)")
                }
            case "ipv6":
                guard let mode = IPv6(rawValue: value) else {
                    throw PluginError.invalidOptions("option ipv6=\(value) must be auto, true or false")
                }
                ipv6 = mode
            case "success-url": successURL = try Self.httpURL(key, value)
            case "failure-url": failureURL = try Self.httpURL(key, value)
            case "success-html": successHTML = value
            case "failure-html": failureHTML = value
            case "expect":
                guard value == "sign-in" || value == "sign-out" else {
                    throw PluginError.invalidOptions("option expect=\(value) must be sign-in or sign-out")
                }
                signOut = value == "sign-out"
            case "max-connections":
                maxConnections = try PluginError.wholeNumber(key, value, in: 2...4096)
            case "request-timeout-ms":
                requestTimeoutMilliseconds = try PluginError.wholeNumber(
                    key, value, in: 50...120_000, unit: "milliseconds")
            default:
                throw PluginError.invalidOptions(
                    "option '\(key)' is unknown to the loopback receiver; known: port, port-range, path, "
                        + "redirect-uri, ipv6, success-url, failure-url, success-html, failure-html, expect, max-connections, request-timeout-ms"
                )
            }
        }
        if let redirectURI { try adopt(redirectURI, ipv6Given: options["ipv6"] != nil) }
    }

    /// Takes the host, port and path of `uri`, refusing options that say otherwise.
    private mutating func adopt(_ uri: LoopbackRedirectURI, ipv6Given: Bool) throws {
        guard path == nil else {
            throw PluginError.invalidOptions(
                "give redirect-uri=\(uri) or path=\(path ?? ""), not both: the URI has its path")
        }
        if let port = uri.port {
            guard ports == nil else {
                throw PluginError.invalidOptions(
                    "redirect-uri=\(uri) has the port \(port): give no port or port-range with it")
            }
            ports = port...port
        }
        switch uri.host {
        case .ipv6:
            guard !ipv6Given || ipv6 == .true else {
                throw PluginError.invalidOptions("redirect-uri=\(uri) is an [::1] URI: ipv6=\(ipv6) contradicts it")
            }
            ipv6 = .true
        case .ipv4, .localhost:
            guard ipv6 != .true else {
                throw PluginError.invalidOptions("redirect-uri=\(uri) is not an [::1] URI: ipv6=true contradicts it")
            }
        }
        path = uri.requestPath
    }

    private static func httpURL(_ key: String, _ value: String) throws -> String {
        guard value.hasPrefix("https://") || value.hasPrefix("http://"),
            !value.contains("\r"), !value.contains("\n")
        else {
            throw PluginError.invalidOptions("option \(key)=\(value) must be an http(s) URL")
        }
        return value
    }

    /// The default path: unguessable, so a page that learns the port still cannot aim at it.
    static func randomPath() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var generator = SystemRandomNumberGenerator()
        return "/cb-" + String((0..<22).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
    }
}
