import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// A local server for the HTTP client's tests: reads each request (head and a Content-Length body),
/// records it, and answers with exactly the bytes it was given — or never. Runs on NIO's threads, so
/// waiting for it never holds the cooperative pool.
final class ScriptedHTTPServer: Sendable {
    enum Answer: Sendable {
        /// Writes these bytes, then closes the connection or leaves it open.
        case bytes(String, close: Bool)
        /// Writes these bytes as soon as anything arrives (a whole request or not), then closes.
        case atOnce(String)
        /// Accepts, reads, and never answers.
        case never
    }

    let host: String
    let port: Int
    private let channel: any Channel
    private let log: RequestLog

    /// The requests received, head and body as text.
    var requests: [String] { log.requests.withLock { $0 } }

    /// `http(s)://host:port` (IPv6 in brackets).
    func url(_ pathAndQuery: String = "/", scheme: String = "http", host: String? = nil) -> String {
        let name = host ?? self.host
        return "\(scheme)://\(name.contains(":") ? "[\(name)]" : name):\(port)\(pathAndQuery)"
    }

    private init(host: String, port: Int, channel: any Channel, log: RequestLog) {
        self.host = host
        self.port = port
        self.channel = channel
        self.log = log
    }

    /// Listens on `host` at a free port; with `tls`, speaks TLS first.
    static func start(host: String = "127.0.0.1", tls: NIOSSLContext? = nil, answer: Answer) async throws -> ScriptedHTTPServer {
        let log = RequestLog()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                    try channel.pipeline.syncOperations.addHandler(ScriptHandler(answer: answer, log: log))
                }
            }
            .bind(host: host, port: 0).get()
        let port = channel.localAddress?.port ?? 0
        return ScriptedHTTPServer(host: host, port: port, channel: channel, log: log)
    }

    func stop() async {
        try? await channel.close()
    }

    /// Where the handlers record requests.
    final class RequestLog: Sendable {
        let requests = Mutex<[String]>([])
    }
}

/// Per connection: collects one request, records it, answers as scripted.
private final class ScriptHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let answer: ScriptedHTTPServer.Answer
    private let log: ScriptedHTTPServer.RequestLog
    private var received: [UInt8] = []
    private var answered = false

    init(answer: ScriptedHTTPServer.Answer, log: ScriptedHTTPServer.RequestLog) {
        self.answer = answer
        self.log = log
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        received += buffer.readBytes(length: buffer.readableBytes) ?? []
        guard !answered else { return }
        if case .atOnce(let text) = answer {
            answered = true
            reply(text, close: true, context: context)
            return
        }
        guard let request = completeRequest() else { return }
        answered = true
        log.requests.withLock { $0.append(request) }
        if case .bytes(let text, let close) = answer { reply(text, close: close, context: context) }
    }

    private func reply(_ text: String, close: Bool, context: ChannelHandlerContext) {
        let write = context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: text)))
        if close {
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            write.whenComplete { _ in loopBound.value.close(promise: nil) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// The request as text once its head and its Content-Length body have arrived.
    private func completeRequest() -> String? {
        let text = String(decoding: received, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return nil }
        let head = text[..<end.lowerBound].lowercased()
        let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        let bodyBytes = received.count - text[..<end.upperBound].utf8.count
        return bodyBytes >= length ? text : nil
    }
}
