#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc

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
            throw HTTPRequestError(.invalidURL, server: "",
                "only http and https URLs can be requested, not '\(url.scheme ?? "")' ones; check the URL")
        }
        guard let host = url.host(percentEncoded: false), !host.isEmpty else {
            throw HTTPRequestError(.invalidURL, server: "", "an \(scheme) URL without a host cannot be requested; check the URL")
        }
        let defaultPort = scheme == "https" ? 443 : 80
        let port = url.port ?? defaultPort
        let isIPv6 = host.contains(":")
        let bracketed = isIPv6 ? "[\(url.host(percentEncoded: true) ?? host)]" : host
        guard (1...65535).contains(port) else {
            throw HTTPRequestError(.invalidURL, server: "\(scheme)://\(bracketed)",
                "the port \(port) of \(scheme)://\(bracketed) is not a TCP port; check the URL")
        }
        self.scheme = scheme
        self.host = host
        self.port = port
        var address = in_addr()
        isIPLiteral = isIPv6 || inet_pton(AF_INET, host, &address) == 1
        hostHeader = port == defaultPort ? bracketed : "\(bracketed):\(port)"
        let path = url.path(percentEncoded: true)
        requestTarget = (path.isEmpty ? "/" : path) + (url.query(percentEncoded: true).map { "?" + $0 } ?? "")
        server = "\(scheme)://\(bracketed):\(port)"
    }

    /// A failure of the connection or the exchange, described with this server.
    func failure(_ error: any Error) -> HTTPRequestError {
        if let error = error as? HTTPRequestError { return error }
        return HTTPRequestError(.failed, server: server, "the request to \(server) failed: \(error)")
    }
}
