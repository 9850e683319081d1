import ExternalUserAgentWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgent
import NIOCore
import NIOHTTP1
import NIOPosix

/// A small HTTP/1.1 server on SwiftNIO: one request per connection, answered by a handler.
struct LocalHTTPServer: Sendable {
    struct Request: Sendable {
        var method: String
        /// The request target as sent: path and query, percent-encoded.
        var target: String
        /// `HTTP/1.1`.
        var version: String
        var path: String
        var query: [String: String]
        var headers: [(String, String)]
        var body: [UInt8]

        func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }

        /// The body as form fields (`application/x-www-form-urlencoded`).
        var form: [String: String] { Self.parseForm(String(decoding: body, as: UTF8.self)) }

        /// The body's form fields in order, repeated names kept.
        var orderedForm: [(name: String, value: String)] {
            String(decoding: body, as: UTF8.self).split(separator: "&").map { pair in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                return (Self.decode(String(parts[0])), parts.count > 1 ? Self.decode(String(parts[1])) : "")
            }
        }

        static func parseForm(_ text: String) -> [String: String] {
            var fields: [String: String] = [:]
            for pair in text.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = decode(String(parts[0]))
                fields[name] = parts.count > 1 ? decode(String(parts[1])) : ""
            }
            return fields
        }

        static func decode(_ text: String) -> String {
            FormCoding.decode(text)
        }
    }

    struct Response: Sendable {
        var status: Int
        var headers: [(String, String)] = []
        var body: [UInt8] = []

        static func json(_ object: some Encodable, status: Int = 200) -> Response {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let data = (try? encoder.encode(object)) ?? Data("{}".utf8)
            return Response(status: status, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
                            body: Array(data))
        }

        static func text(_ status: Int, _ text: String, contentType: String = "text/plain; charset=utf-8") -> Response {
            Response(status: status, headers: [("Content-Type", contentType)], body: Array(text.utf8))
        }

        static func redirect(to location: String) -> Response {
            Response(status: 302, headers: [("Location", location)])
        }
    }

    typealias Handler = @Sendable (Request) async -> Response

    let channel: NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never>

    static func bind(host: String, port: Int) async throws -> LocalHTTPServer {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(wrappingChannelSynchronously: channel)
                }
            }
        return LocalHTTPServer(channel: channel)
    }

    var port: Int { channel.channel.localAddress?.port ?? 0 }

    /// Serves until the listening channel closes.
    func serve(_ handler: @escaping Handler) async {
        try? await channel.executeThenClose { inbound in
            try await withThrowingDiscardingTaskGroup { group in
                for try await connection in inbound {
                    group.addTask { await Self.handle(connection, handler) }
                }
            }
        }
    }

    func close() async {
        try? await channel.channel.close()
    }

    private static func handle(_ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>,
                               _ handler: Handler) async {
        try? await connection.executeThenClose { inbound, outbound in
            var head: HTTPRequestHead?
            var body: [UInt8] = []
            for try await part in inbound {
                switch part {
                case .head(let value): head = value
                case .body(var buffer):
                    body += buffer.readBytes(length: buffer.readableBytes) ?? []
                    if body.count > 1 << 20 { return }
                case .end:
                    guard let head else { return }
                    let components = URLComponents(string: head.uri)
                    let query = Request.parseForm(components?.percentEncodedQuery ?? "")
                    let request = Request(method: head.method.rawValue, target: head.uri, version: "\(head.version)",
                                          path: components?.path ?? head.uri, query: query,
                                          headers: head.headers.map { ($0.name, $0.value) }, body: body)
                    let response = await handler(request)
                    var headers = HTTPHeaders(response.headers)
                    headers.replaceOrAdd(name: "Content-Length", value: String(response.body.count))
                    headers.replaceOrAdd(name: "Connection", value: "close")
                    try await outbound.write(.head(HTTPResponseHead(
                        version: .http1_1, status: HTTPResponseStatus(statusCode: response.status), headers: headers)))
                    if !response.body.isEmpty { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: response.body)))) }
                    try await outbound.write(.end(nil))
                    return
                }
            }
        }
    }
}
