// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentRules
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore
import ExternalUserAgentSystem
#if canImport(Glibc)
import Glibc
#endif
import CExternalUserAgentNet
import ExternalUserAgentNet
import Synchronization

/// A small HTTP/1.1 server on blocking sockets (ExternalUserAgentNet's strict request parser): one request per connection,
/// each on a thread of its own, answered by a handler. No SwiftNIO, so `eua demo` (which runs it in process)
/// starts no event loop and `eua` links no NIO.
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
            return Response(
                status: status, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
                body: Array(data))
        }

        static func text(_ status: Int, _ text: String, contentType: String = "text/plain; charset=utf-8") -> Response {
            Response(status: status, headers: [("Content-Type", contentType)], body: Array(text.utf8))
        }

        static func redirect(to location: String) -> Response {
            Response(status: 302, headers: [("Location", location)])
        }
    }

    /// Answers a request, on the connection's thread (not the cooperative pool's): it may block, never suspend.
    typealias Handler = @Sendable (Request) -> Response

    /// The longest a connection may take to send its request; then it is closed unanswered.
    static let requestTimeout: Duration = .seconds(30)
    /// The largest request head and body read.
    static let maximumHeadBytes = 64 * 1024
    static let maximumBodyBytes = 1 << 20

    private let listener: Int32
    private let stop: StopSignal
    /// The thread that accepts connections; it returns once the listening socket is closed.
    private let serving = ServingCall()

    private final class ServingCall: Sendable {
        let call = Mutex<BlockingCall<Void>?>(nil)
    }
    /// The port the server listens on, on 127.0.0.1.
    let port: Int

    /// Listens on `host` (`127.0.0.1` or `::1`) on `port` (0: a free one).
    static func bind(host: String, port: Int) async throws -> LocalHTTPServer {
        let listener = try LoopbackSocket.listen(host: host, port: port)
        do {
            return LocalHTTPServer(
                listener: listener, stop: try StopSignal(), port: try LoopbackSocket.port(of: listener))
        } catch {
            Glibc.close(listener)
            throw error
        }
    }

    /// Serves until ``close()``, on a thread of its own: each connection on a thread of its own too, one request
    /// each, answered by `handler`. Throws when no thread can be made for it.
    func serve(_ handler: @escaping Handler) throws {
        let call = try BlockingCall.start(name: "eua-local-http") { [self] in acceptUntilStopped(handler) }
        serving.call.withLock { $0 = call }
    }

    /// Stops accepting and closes the listening socket (waiting up to 2 s for that); requests already being
    /// answered are finished.
    func close() async {
        stop.raise()
        guard let call = serving.call.withLock({ $0 }) else { return }
        _ = await call.value(until: .now + .seconds(2))
    }

    private func acceptUntilStopped(_ handler: @escaping Handler) {
        defer {
            Glibc.close(listener)
            stop.close()
        }
        var entries = [
            pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
            pollfd(fd: stop.descriptor, events: Int16(POLLIN), revents: 0),
        ]
        while !stop.isRaised {
            entries[0].revents = 0
            entries[1].revents = 0
            guard poll(&entries, 2, -1) >= 0 || errno == EINTR else { return }
            if entries[1].revents != 0 { return }
            guard entries[0].revents != 0 else { continue }
            let connection = eua_net_accept(listener)
            guard connection >= 0 else { continue }
            do {
                _ = try BlockingCall.start(name: "eua-local-conn") { Self.answer(connection, handler) }
            } catch {
                Glibc.close(connection)
            }
        }
    }

    /// Reads one request from `fd`, answers it with `handler`, and closes the connection.
    private static func answer(_ fd: Int32, _ handler: @escaping Handler) {
        let connection = TCPConnection(accepted: fd, endpoint: "the client")
        let deadline = Deadline(after: requestTimeout)
        guard let request = read(connection, until: deadline) else { return }
        let response = handler(request)
        var lines = ["HTTP/1.1 \(response.status) \(HTTPStatus(code: response.status).reason)"]
        for (name, value) in response.headers
        where !["content-length", "connection"].contains(name.lowercased()) {
            lines.append("\(name): \(value)")
        }
        lines += ["Content-Length: \(response.body.count)", "Connection: close", "", ""]
        // A client that went away or stopped reading is not waited for past the deadline.
        try? connection.send(Array(lines.joined(separator: "\r\n").utf8) + response.body, until: deadline)
    }

    /// The request: its head (strictly parsed, at most ``maximumHeadBytes``) and a `Content-Length` body (at most
    /// ``maximumBodyBytes``); `nil` (the connection is closed unanswered) for anything else or at the deadline.
    private static func read(_ connection: TCPConnection, until deadline: Deadline) -> Request? {
        var parser = HTTPRequestHeadParser(limit: maximumHeadBytes, keepsFields: true)
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var received: [UInt8] = []
        var head: HTTPRequestHead?
        while head == nil {
            guard let count = try? connection.receive(into: &buffer, until: deadline), count > 0 else { return nil }
            let before = parser.bytesConsumed
            switch parser.feed(buffer[0..<count]) {
            case .needMore:
                continue
            case .head(let value):
                head = value
                received = Array(buffer[(parser.bytesConsumed - before)..<count])
            case .invalid, .tooLarge:
                return nil
            }
        }
        guard let head, !head.fields.contains(where: { $0.name.lowercased() == "transfer-encoding" }) else {
            return nil
        }
        let lengths = head.fields.filter { $0.name.lowercased() == "content-length" }.map(\.value)
        guard lengths.count <= 1 else { return nil }
        let length = lengths.first.map { Int($0) } ?? 0
        guard let length, (0...maximumBodyBytes).contains(length) else { return nil }
        while received.count < length {
            guard let count = try? connection.receive(into: &buffer, until: deadline), count > 0 else { return nil }
            received += buffer[0..<count]
        }
        let components = URLComponents(string: head.target)
        return Request(
            method: head.method, target: head.target, version: "HTTP/1.\(head.minorVersion)",
            path: components?.path ?? head.target,
            query: Request.parseForm(components?.percentEncodedQuery ?? ""),
            headers: head.fields.map { ($0.name, $0.value) }, body: Array(received[0..<length]))
    }
}
