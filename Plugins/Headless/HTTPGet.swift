import NIOCore
import NIOHTTP1
import NIOPosix

/// One HTTP/1.1 GET over SwiftNIO, the way a browser follows a redirect: returns the status.
///
/// SwiftNIO rather than URLSession: a plugin must not load Foundation, which would take over
/// the host's main queue (an `async` main that only uses FoundationEssentials then never exits).
enum HTTPGet {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func status(host: String, port: Int, target: String, timeout: TimeAmount = .seconds(10)) async throws -> Int {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(timeout)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target)
            let hostHeader = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            head.headers.add(name: "Host", value: hostHeader)
            head.headers.add(name: "User-Agent", value: "eua-headless/\(HeadlessPlugin.version)")
            head.headers.add(name: "Connection", value: "close")
            try await outbound.write(.head(head))
            try await outbound.write(.end(nil))
            var status: Int?
            for try await part in inbound {
                switch part {
                case .head(let response): status = Int(response.status.code)
                case .body: continue
                case .end: return status ?? 0
                }
            }
            guard let status else { throw Failure(description: "the connection closed before a response arrived") }
            return status
        }
    }
}
