import NIOCore
import NIOHTTP1

/// Serves one request per connection: validates it, answers with a page, then closes.
final class CallbackHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let server: LoopbackServer
    private let connectionID: Int
    private var answered = false

    init(server: LoopbackServer, connectionID: Int) {
        self.server = server
        self.connectionID = connectionID
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data), !answered else { return }
        answered = true
        server.registry.headArrived(connectionID)
        switch server.validation.check(head) {
        case .refuse(let status, let reason):
            server.refused(status: Int(status.code), reason: reason)
            respond(context, status: status, html: Pages.refusal(reason))
        case .callback(let parameters, let query, let isError):
            guard server.complete(query: query, connectionID: connectionID) else {
                respond(context, status: .conflict, html: Pages.refusal("This sign-in has already been completed."))
                return
            }
            let pages = server.options
            if isError {
                if let url = pages.failureURL {
                    redirect(context, to: url)
                } else {
                    respond(context, status: .ok, html: pages.failureHTML
                        ?? Pages.oauthError(parameters["error"] ?? "", description: parameters["error_description"]))
                }
            } else if let url = pages.successURL {
                redirect(context, to: url)
            } else {
                respond(context, status: .ok, html: pages.successHTML ?? Pages.success())
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !answered else {
            context.close(promise: nil)
            return
        }
        answered = true
        server.refused(status: 400, reason: "The request is not valid HTTP.")
        respond(context, status: .badRequest, html: Pages.refusal("The request is not valid HTTP."))
    }

    private func respond(_ context: ChannelHandlerContext, status: HTTPResponseStatus, html: String) {
        var body = context.channel.allocator.buffer(capacity: html.utf8.count)
        body.writeString(html)
        var headers = Pages.headers(length: body.readableBytes)
        if status == .methodNotAllowed { headers.add(name: "Allow", value: "GET") }
        send(context, HTTPResponseHead(version: .http1_1, status: status, headers: headers), body: body)
    }

    private func redirect(_ context: ChannelHandlerContext, to url: String) {
        var headers = Pages.headers(length: 0)
        headers.add(name: "Location", value: url)
        send(context, HTTPResponseHead(version: .http1_1, status: .found, headers: headers), body: nil)
    }

    private func send(_ context: ChannelHandlerContext, _ head: HTTPResponseHead, body: ByteBuffer?) {
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if let body { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }
}

/// Caps the bytes a client may send before its request is answered (header floods, endless
/// request lines); over the cap it gets 431 and the connection closes.
final class RequestSizeLimiter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let limit: Int
    private let onExceeded: (String) -> Void
    private var received = 0
    private var exceeded = false

    init(limit: Int, onExceeded: @escaping (String) -> Void) {
        self.limit = limit
        self.onExceeded = onExceeded
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !exceeded else { return }
        let buffer = unwrapInboundIn(data)
        received += buffer.readableBytes
        if received > limit {
            exceeded = true
            onExceeded("The request is too large.")
            let html = Pages.refusal("The request is too large.")
            var reply = context.channel.allocator.buffer(capacity: 512 + html.utf8.count)
            reply.writeString("HTTP/1.1 431 Request Header Fields Too Large\r\n")
            for (name, value) in Pages.headers(length: html.utf8.count) {
                reply.writeString("\(name): \(value)\r\n")
            }
            reply.writeString("\r\n" + html)
            let channel = context.channel
            context.writeAndFlush(NIOAny(reply)).whenComplete { _ in channel.close(promise: nil) }
            return
        }
        context.fireChannelRead(data)
    }
}
