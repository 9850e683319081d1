// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// Why a ``CurlClient`` request failed: a kind to act on and a message that says what and where (the host, never
/// the URL's query, which may carry codes).
public struct CurlError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable, Equatable {
        /// libcurl could not be opened or is too old.
        case unavailable
        /// The request itself is unusable (its URL, method or a header).
        case invalidRequest
        /// The host name did not resolve, or nothing accepted the connection.
        case connect
        /// The server's certificate is not signed by a trusted CA or does not name the host.
        case untrustedCertificate
        /// The CA file given could not be read as PEM certificates.
        case caFile
        /// Another TLS failure (handshake, protocol version).
        case tls
        /// The connect timeout or the request's deadline passed.
        case timedOut
        /// The body is larger than the configured maximum.
        case tooLarge
        /// The connection ended before the whole answer had arrived (or with none at all).
        case cutShort
        /// The stop descriptor became readable.
        case stopped
        /// Anything else libcurl reports.
        case failed
    }

    public var kind: Kind
    public var description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}
