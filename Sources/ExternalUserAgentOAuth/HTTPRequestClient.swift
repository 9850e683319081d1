#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One HTTP/1.1 request on a connection of its own (`Connection: close`), over TCP or TLS, with the
/// whole response read into memory: plain `http` to an IP literal or localhost over PluginNet's sockets
/// (``PlainHTTPExchange``), `https` and plain `http` to a DNS name here.
///
/// SwiftNIO and swift-nio-ssl directly rather than AsyncHTTPClient, which brings Foundation (through
/// NIOFoundationCompat), HTTP/2 and more: start-up time, memory and build time for a few small requests.
/// `timeout` bounds everything from the name lookup to the last byte of the body; https verifies the
/// certificate chain and the host name (by IP address for an IP literal).
struct HTTPRequestClient: Sendable {
    struct Response: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: ByteBuffer
    }

    /// How long a request may take, connecting included.
    var timeout: Duration
    /// The largest response body accepted.
    var maximumBodyBytes: Int
    /// The TLS context for https; `nil` for the system's trust roots.
    var tlsContext: NIOSSLContext?
    /// `timeout` is what was left of the whole flow's time (``OAuthHTTP/deadline``): messages say so.
    var limitedByDeadline = false

    /// How a message names the time limit: `15 s`, or `1.2 s, what was left of the sign-in's time`.
    private var limitText: String {
        Self.describe(timeout) + (limitedByDeadline ? ", what was left of the whole sign-in's time limit (--timeout)" : "")
    }

    /// Whether `target` goes over PluginNet's plain sockets: plain `http` where no name server is asked (an IP
    /// literal, localhost). PluginNet's blocking name lookup would not end at the deadline or on cancellation;
    /// NIO's does, so an `http` DNS name goes through NIO like `https`.
    static func usesPlainSockets(_ target: HTTPTarget) -> Bool {
        !target.isTLS && (target.isIPLiteral || target.host.lowercased() == "localhost")
    }

    /// Sends `method` with `headers` and `body` to `url` and reads the whole response, within
    /// `timeout` of `start`. Adds Host, `Connection: close` and, with a body, Content-Length.
    func execute(_ method: HTTPMethod, _ url: URL, headers: HTTPHeaders = [:], body: ByteBuffer? = nil,
                 start: NIODeadline = .now()) async throws -> Response {
        let target = try HTTPTarget(url)
        if Self.usesPlainSockets(target) {
            let deadline = ContinuousClock.now + timeout - .nanoseconds(max(0, (NIODeadline.now() - start).nanoseconds))
            return try await PlainHTTPExchange(target: target, maximumBodyBytes: maximumBodyBytes, limitText: limitText)
                .run(method, headers: headers, body: body, deadline: deadline)
        }
        let deadline = start + TimeAmount(timeout)
        let channel = try await connect(to: target, deadline: deadline)
        // Closing the channel at the deadline ends whatever waits on it; the error is told apart below.
        let timer = channel.channel.eventLoop.scheduleTask(deadline: deadline) { channel.channel.close(promise: nil) }
        defer { timer.cancel() }
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: target.requestTarget)
        head.headers.add(name: "Host", value: target.hostHeader)
        head.headers.add(contentsOf: headers)
        head.headers.add(name: "Connection", value: "close")
        if let body { head.headers.add(name: "Content-Length", value: String(body.readableBytes)) }
        let requestHead = head
        do {
            return try await withTaskCancellationHandler {
                try await channel.executeThenClose { inbound, outbound in
                    do {
                        try await outbound.write(.head(requestHead))
                        if let body, body.readableBytes > 0 { try await outbound.write(.body(.byteBuffer(body))) }
                        try await outbound.write(.end(nil))
                    } catch let writeError {
                        // Sending fails once the connection has ended; what came in says why (a failed TLS
                        // handshake) or is an answer sent early.
                        do {
                            return try await self.read(inbound, from: target)
                        } catch let error as HTTPRequestError where error.kind == .connectionClosed {
                            throw writeError
                        }
                    }
                    return try await self.read(inbound, from: target)
                }
            } onCancel: {
                channel.channel.close(promise: nil)
            }
        } catch {
            if Task.isCancelled { throw CancellationError() }
            if let error = error as? HTTPRequestError, error.kind != .connectionClosed { throw error }
            if NIODeadline.now() >= deadline {
                throw HTTPRequestError(.timedOut, server: target.server,
                    "\(target.server) did not answer within \(limitText); check that it is the right "
                        + "server and that it is up, or allow more time")
            }
            throw target.failure(error)
        }
    }

    private func read(_ inbound: NIOAsyncChannelInboundStream<HTTPClientResponsePart>,
                      from target: HTTPTarget) async throws -> Response {
        var head: HTTPResponseHead?
        var body = ByteBuffer()
        for try await part in inbound {
            switch part {
            case .head(let value):
                if let length = value.headers.first(name: "Content-Length").flatMap(Int.init), length > maximumBodyBytes {
                    throw tooLarge(target)
                }
                head = value
            case .body(var chunk):
                guard body.readableBytes + chunk.readableBytes <= maximumBodyBytes else { throw tooLarge(target) }
                body.writeBuffer(&chunk)
            case .end:
                guard let head else { break }
                return Response(status: Int(head.status.code), headers: head.headers, body: body)
            }
        }
        throw HTTPRequestError(.connectionClosed, server: target.server,
            "\(target.server) closed the connection before the whole response had arrived; try again, and check "
                + "that the URL's port is an \(target.scheme) server")
    }

    private func tooLarge(_ target: HTTPTarget) -> HTTPRequestError {
        HTTPRequestError(.bodyTooLarge, server: target.server,
            "the response from \(target.server) is larger than \(maximumBodyBytes) bytes, the limit "
                + "(OAuthHTTP.maximumBodyBytes); check the URL, or raise the limit")
    }

    private func connect(to target: HTTPTarget, deadline: NIODeadline)
        async throws -> NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart> {
        let tls = target.isTLS ? try tlsContext ?? Self.systemTLSContext(for: target) : nil
        // SNI carries a DNS name only; an IP literal is verified against the certificate's IP addresses.
        let serverName = target.isIPLiteral ? nil : target.host
        do {
            return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(max(deadline - .now(), .nanoseconds(1)))
                .connect(host: target.host, port: target.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let tls {
                            try channel.pipeline.syncOperations.addHandler(
                                NIOSSLClientHandler(context: tls, serverHostname: serverName))
                        }
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(
                            wrappingChannelSynchronously: channel)
                    }
                }
        } catch ChannelError.connectTimeout {
            throw HTTPRequestError(.timedOut, server: target.server,
                "no connection to \(target.server) within \(limitText); check the host, the port and "
                    + "the network, or allow more time")
        } catch let error as NIOConnectionError {
            if let dnsError = error.dnsAError ?? error.dnsAAAAError, error.connectionErrors.isEmpty {
                throw HTTPRequestError(.connectFailed, server: target.server,
                    "the host name '\(target.host)' of \(target.server) could not be resolved (\(dnsError)); "
                        + "check the URL and the network")
            }
            let refused = !error.connectionErrors.isEmpty && error.connectionErrors.allSatisfy {
                ($0.error as? IOError)?.errnoCode == ECONNREFUSED
            }
            if refused {
                throw HTTPRequestError(.connectFailed, server: target.server,
                    "\(target.server) refused the connection; check that the server is running and that the URL's "
                        + "host and port are right")
            }
            throw HTTPRequestError(.connectFailed, server: target.server,
                "could not connect to \(target.server) (\(error)); check the URL and the network")
        } catch {
            throw target.failure(error)
        }
    }

    /// The context for https with the system's trust roots, made on first use.
    private static let systemTLSContext: Result<NIOSSLContext, TLSSetupError> = Result(catching: {
        try NIOSSLContext(configuration: .makeClientConfiguration())
    }).mapError { TLSSetupError(message: "\($0)") }

    private struct TLSSetupError: Error {
        var message: String
    }

    private static func systemTLSContext(for target: HTTPTarget) throws -> NIOSSLContext {
        switch systemTLSContext {
        case .success(let context):
            return context
        case .failure(let error):
            throw HTTPRequestError(.tlsFailed, server: target.server,
                "TLS for \(target.server) could not be set up with the system's trust roots: \(error.message)")
        }
    }

    /// `15 s`, `0.5 s`.
    static func describe(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(seconds) s" : "\(Double(milliseconds) / 1000) s"
    }
}
