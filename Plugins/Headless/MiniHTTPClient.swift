import NIOCore
import NIOHTTP1
import NIOPosix

/// A small HTTP/1.1 client over SwiftNIO: one request per connection, plain `http` only.
///
/// SwiftNIO rather than URLSession or AsyncHTTPClient: a plugin must not load Foundation, which would
/// take over the host's main queue (an `async` main that only uses FoundationEssentials then never exits).
enum MiniHTTPClient {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    struct Response: Sendable {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        func headers(_ name: String) -> [String] {
            headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
        }
    }

    /// The largest response body read; a longer one is an error.
    static let maximumBodyBytes = 2 << 20

    /// Sends one request and reads the whole response.
    static func send(method: HTTPMethod = .GET, host: String, port: Int, target: String,
                     headers: [(String, String)] = [], body: [UInt8]? = nil,
                     timeout: TimeAmount = .seconds(10)) async throws -> Response {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(timeout)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var head = HTTPRequestHead(version: .http1_1, method: method, uri: target)
            let hostHeader = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            head.headers.add(name: "Host", value: hostHeader)
            head.headers.add(name: "User-Agent", value: "eua-headless/\(HeadlessPlugin.version)")
            head.headers.add(name: "Connection", value: "close")
            for (name, value) in headers { head.headers.add(name: name, value: value) }
            if let body { head.headers.replaceOrAdd(name: "Content-Length", value: String(body.count)) }
            try await outbound.write(.head(head))
            if let body, !body.isEmpty { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
            try await outbound.write(.end(nil))
            var response: Response?
            for try await part in inbound {
                switch part {
                case .head(let value):
                    response = Response(status: Int(value.status.code),
                                        headers: value.headers.map { ($0.name, $0.value) }, body: [])
                case .body(var buffer):
                    response?.body += buffer.readBytes(length: buffer.readableBytes) ?? []
                    if (response?.body.count ?? 0) > maximumBodyBytes {
                        throw Failure(description: "the response body is larger than \(maximumBodyBytes) bytes")
                    }
                case .end:
                    if let response { return response }
                }
            }
            guard let response else { throw Failure(description: "the connection closed before a response arrived") }
            return response
        }
    }

    /// GETs `target` and returns only the status (delivering a redirect to a receiver).
    static func status(host: String, port: Int, target: String, timeout: TimeAmount = .seconds(10)) async throws -> Int {
        try await send(host: host, port: port, target: target, timeout: timeout).status
    }
}
