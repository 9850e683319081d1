#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOHTTP1
import NIOSSL

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
        isIPLiteral = isIPv6 || (try? SocketAddress(ipAddress: host, port: 0)) != nil
        hostHeader = port == defaultPort ? bracketed : "\(bracketed):\(port)"
        let path = url.path(percentEncoded: true)
        requestTarget = (path.isEmpty ? "/" : path) + (url.query(percentEncoded: true).map { "?" + $0 } ?? "")
        server = "\(scheme)://\(bracketed):\(port)"
    }

    /// A failure of the connection or the exchange, described with this server.
    func failure(_ error: any Error) -> HTTPRequestError {
        if let reason = Self.tlsReason(error) {
            return HTTPRequestError(.tlsFailed, server: server,
                "TLS with \(server) failed: \(reason); check that the server speaks https on that port, with a "
                    + "certificate for '\(host)' that this system trusts")
        }
        if let error = error as? HTTPParserError {
            if error == .invalidEOFState {
                return HTTPRequestError(.connectionClosed, server: server,
                    "\(server) closed the connection before the whole response had arrived; try again")
            }
            return HTTPRequestError(.failed, server: server,
                "the response from \(server) is not valid HTTP/1.1 (\(error)); check that the URL's port is an "
                    + "\(scheme) server")
        }
        if let error = error as? ChannelError, error == .ioOnClosedChannel || error == .alreadyClosed || error == .eof {
            return HTTPRequestError(.connectionClosed, server: server,
                "\(server) closed the connection before the request had been sent; try again, and check that the "
                    + "URL's port is an \(scheme) server")
        }
        if let error = error as? HTTPRequestError { return error }
        return HTTPRequestError(.failed, server: server, "the request to \(server) failed: \(error)")
    }

    /// Why TLS failed, in words (`certificate verify failed`), or `nil` for a failure that is not TLS's.
    private static func tlsReason(_ error: any Error) -> String? {
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return "the certificate is not for this host"
        }
        switch error {
        case NIOSSLError.uncleanShutdown:
            return "the server closed the connection without ending TLS, so the response may be cut short"
        case NIOSSLError.handshakeFailed(.sslError(let errors)) where !errors.isEmpty:
            return errors.map { reason(openSSLError: "\($0)") }.joined(separator: ", ")
        case is NIOSSLError, is NIOSSLExtraError, is BoringSSLError:
            return "\(error)"
        default:
            return nil
        }
    }

    /// `CERTIFICATE_VERIFY_FAILED` as `certificate verify failed`, out of `… OPENSSL_internal:REASON at file:line`.
    private static func reason(openSSLError text: String) -> String {
        guard let start = text.firstRange(of: "OPENSSL_internal:")?.upperBound else { return text }
        let rest = text[start...]
        let name = rest[..<(rest.firstRange(of: " at ")?.lowerBound ?? rest.endIndex)]
        return name.lowercased().replacing("_", with: " ")
    }
}
