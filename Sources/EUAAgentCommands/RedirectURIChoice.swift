// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ArgumentParser
import ExternalUserAgentRules

/// The receiver and its options that `eua receive --redirect-uri` asks for: a private-use scheme URI
/// (`com.example.app:/cb`) is the `scheme` receiver's; a loopback one (`http://127.0.0.1:8400/cb`) the
/// `loopback` receiver's with that port and path.
struct RedirectURIChoice {
    var receiver: String
    var options: [String: String]

    init(_ uri: String) throws(ValidationError) {
        guard let scheme = PrivateUseScheme.scheme(of: uri) else {
            throw ValidationError(
                "--redirect-uri \(uri) has no scheme; give com.example.app:/cb or http://127.0.0.1:PORT/PATH")
        }
        let rest = String(uri.dropFirst(scheme.utf8.count + 1))
        if scheme == "http" {
            let loopback = try Self.loopback(uri, rest: rest)
            receiver = loopback.receiver
            options = loopback.options
            return
        }
        if let problem = PrivateUseScheme.problem(with: scheme) {
            throw ValidationError("--redirect-uri \(uri): \(problem)")
        }
        guard rest.hasPrefix("/"), !rest.hasPrefix("//"), !rest.contains("?"), !rest.contains("#") else {
            throw ValidationError(
                "--redirect-uri \(uri): a private-use redirect URI is <scheme>:/<path> with a single '/' "
                    + "and no query or fragment (RFC 8252 §7.1), such as \(scheme):/oauth2redirect")
        }
        receiver = "scheme"
        options = ["scheme": scheme, "path": rest]
    }

    private static func loopback(_ uri: String, rest: String) throws(ValidationError) -> (
        receiver: String, options: [String: String]
    ) {
        let usage = ValidationError(
            "--redirect-uri \(uri): a loopback redirect URI is http://127.0.0.1:PORT/PATH "
                + "or http://[::1]:PORT/PATH (RFC 8252 §7.3), without query or fragment")
        guard rest.hasPrefix("//"), !rest.contains("?"), !rest.contains("#") else { throw usage }
        let authorityAndPath = rest.dropFirst(2)
        let slash = authorityAndPath.firstIndex(of: "/") ?? authorityAndPath.endIndex
        let authority = authorityAndPath[..<slash]
        let path = authorityAndPath[slash...]
        let host: Substring
        let portText: Substring
        if authority.hasPrefix("[::1]:") {
            host = "[::1]"
            portText = authority.dropFirst(6)
        } else if authority.hasPrefix("127.0.0.1:") {
            host = "127.0.0.1"
            portText = authority.dropFirst(10)
        } else {
            throw usage
        }
        guard let port = Int(portText), (1...65535).contains(port), path.hasPrefix("/") else { throw usage }
        var options = ["port": String(port), "path": String(path)]
        if host == "[::1]" { options["ipv6"] = "true" }
        return (receiver: "loopback", options: options)
    }
}
