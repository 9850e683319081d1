// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentNet

/// A small HTTP/1.1 client on plain blocking sockets: one request per connection (`Connection: close`),
/// plain `http` only (follow mode's `http` requests and the redirect's delivery). Connecting has its own deadline, and sending plus reading the whole response another;
/// raising `stop` ends any wait at once (``NetworkError/stopped``).
///
/// Plain sockets rather than SwiftNIO (each plugin would embed its own copy, with its own threads) or
/// URLSession (a plugin must not load Foundation, which takes over the host's main queue).
enum MiniHTTPClient {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The largest response body read; a longer one is an error.
    static let maximumBodyBytes = 2 << 20
    /// How long connecting may take.
    static let connectTimeout = Duration.seconds(10)
    /// How long sending the request and reading the whole response may take.
    static let exchangeTimeout = Duration.seconds(30)

    /// Sends one request and reads the whole response.
    static func send(
        method: String = "GET", host: String, port: Int, target: String,
        headers: [(String, String)] = [], body: [UInt8]? = nil, stop: StopSignal,
        connectTimeout: Duration = MiniHTTPClient.connectTimeout,
        exchangeTimeout: Duration = MiniHTTPClient.exchangeTimeout,
        maximumBodyBytes: Int = MiniHTTPClient.maximumBodyBytes
    ) throws -> HTTPResponse {
        let connection = try TCPConnection.connect(
            host: host, port: port, deadline: Deadline(after: connectTimeout), stop: stop)
        let request = try requestBytes(
            method: method, hostHeader: connection.endpoint, target: target,
            headers: headers, body: body)
        let deadline = Deadline(after: exchangeTimeout)
        try connection.send(request, until: deadline)
        var parser = HTTPResponseParser(maximumBodyBytes: maximumBodyBytes)
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = try connection.receive(into: &buffer, until: deadline)
            if count == 0 { return try parser.finish() }
            if let response = try parser.feed(buffer[0..<count]) { return response }
        }
    }

    /// The request's bytes; a header that would break the message (a CR, LF or NUL in it) is refused.
    static func requestBytes(
        method: String, hostHeader: String, target: String, headers: [(String, String)],
        body: [UInt8]?
    ) throws -> [UInt8] {
        var lines = [
            "\(method) \(target) HTTP/1.1", "Host: \(hostHeader)",
            "User-Agent: eua-headless/\(HeadlessPlugin.version)", "Connection: close",
        ]
        lines += headers.map { "\($0.0): \($0.1)" }
        if let body { lines.append("Content-Length: \(body.count)") }
        for line in lines where line.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) {
            throw Failure(
                description:
                    "the request line or a header holds a line break (\(line.prefix { $0 != ":" && $0 != " " }))")
        }
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + (body ?? [])
    }

    /// GETs `target` and returns only the status (delivering a redirect to a receiver).
    static func status(host: String, port: Int, target: String, stop: StopSignal) throws -> Int {
        try send(host: host, port: port, target: target, stop: stop).status
    }
}
