// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// Why an HTTP request of ``OAuthHTTP`` failed: what happened, with which server, and what to do.
///
/// Names the server only as `scheme://host:port`: never the path, query, headers or body, which may
/// carry codes, tokens or secrets.
public struct HTTPRequestError: Error, Sendable, CustomStringConvertible {
    /// An extensible set of failure kinds; never switch over it exhaustively.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case invalidURL, connectFailed, timedOut, tlsFailed, bodyTooLarge, connectionClosed, failed
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The URL is not an `http` or `https` URL with a host.
        public static let invalidURL = Kind(.invalidURL)
        /// The host could not be resolved, or refused the connection.
        public static let connectFailed = Kind(.connectFailed)
        /// The request, connection included, took longer than its time limit.
        public static let timedOut = Kind(.timedOut)
        /// TLS failed: not an https server, a certificate not trusted or not for this host, or an unclean end.
        public static let tlsFailed = Kind(.tlsFailed)
        /// The response body is larger than the limit.
        public static let bodyTooLarge = Kind(.bodyTooLarge)
        /// The server closed the connection before the whole response had arrived.
        public static let connectionClosed = Kind(.connectionClosed)
        /// Anything else: the message says what.
        public static let failed = Kind(.failed)

        public var description: String { base.rawValue }
    }

    /// What kind of failure it is.
    public var kind: Kind
    /// The server as `scheme://host:port` (empty for an invalid URL).
    public var server: String
    /// What happened and what to do, naming the server.
    public var message: String

    /// An error of `kind` with `server` (`scheme://host:port`, empty for an invalid URL) and `message`, which says
    /// what happened and what to do, and never holds a path, query, header or body.
    public init(_ kind: Kind, server: String, _ message: String) {
        self.kind = kind
        self.server = server
        self.message = message
    }

    public var description: String { message }
}
