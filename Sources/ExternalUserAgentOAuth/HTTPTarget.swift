// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Where a URL points: what to connect to, what to send as Host and request target, and how to name it.
struct HTTPTarget: Sendable {
    var scheme: String
    var host: String
    var port: Int
    var isTLS: Bool { scheme == "https" }
    /// An IPv4 or IPv6 address rather than a DNS name.
    var isIPLiteral: Bool
    /// The Host header: the host (IPv6 in brackets) and the port when it is not the scheme's default.
    var hostHeader: String
    /// The path and query exactly as percent-encoded in the URL; `/` when the path is empty.
    var requestTarget: String
    /// `scheme://host:port`, for messages: never the path or query, which may carry secrets.
    var server: String

    init(_ url: URL) throws {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw HTTPRequestError(
                .invalidURL, server: "",
                "only http and https URLs can be requested, not '\(url.scheme ?? "")' ones; check the URL")
        }
        guard let host = url.host(percentEncoded: false), !host.isEmpty else {
            throw HTTPRequestError(
                .invalidURL, server: "", "an \(scheme) URL without a host cannot be requested; check the URL")
        }
        let defaultPort = scheme == "https" ? 443 : 80
        let port = url.port ?? defaultPort
        let isIPv6 = host.contains(":")
        let bracketed = isIPv6 ? "[\(url.host(percentEncoded: true) ?? host)]" : host
        guard (1...65535).contains(port) else {
            throw HTTPRequestError(
                .invalidURL, server: "\(scheme)://\(bracketed)",
                "the port \(port) of \(scheme)://\(bracketed) is not a TCP port; check the URL")
        }
        self.scheme = scheme
        self.host = host
        self.port = port
        isIPLiteral = isIPv6 || Self.isIPv4Literal(host)
        hostHeader = port == defaultPort ? bracketed : "\(bracketed):\(port)"
        let path = url.path(percentEncoded: true)
        requestTarget = (path.isEmpty ? "/" : path) + (url.query(percentEncoded: true).map { "?" + $0 } ?? "")
        server = "\(scheme)://\(bracketed):\(port)"
    }

    /// The URL to hand to libcurl: scheme, Host header and request target, so what is requested is exactly what
    /// this target says (no fragment, the path and query as percent-encoded).
    var curlURL: String { "\(scheme)://\(hostHeader)\(requestTarget)" }

    /// Whether `host` is a dotted-quad IPv4 address (`inet_pton`'s grammar: four decimal octets).
    private static func isIPv4Literal(_ host: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, host, &address) == 1
    }
}
