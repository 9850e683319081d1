// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif
@testable import EUAHeadless
import ExternalUserAgentSystem
import ExternalUserAgentNet
import Synchronization
import EUATestSupport
import Testing

/// The headless agent's HTTP client against a canned one-connection server over real sockets: what it
/// sends, and that every wait ends — by its deadline or by the stop signal.
@Suite("headless client: requests over real sockets", .onOwnThreads, .timeLimit(.minutes(1)))
struct MiniHTTPClientTests {
    @Test("it sends one well-formed request with Connection: close and reads a chunked answer")
    func requestAndChunkedResponse() throws {
        let server = try CannedServer(
            reply: Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n".utf8))
        let response = try MiniHTTPClient.send(
            method: "POST", host: "127.0.0.1", port: server.port, target: "/login?x=1",
            headers: [("Cookie", "s=1")], body: Array("sub=alice".utf8), stop: StopSignal())
        #expect(response.status == 200 && response.body == Array("abc".utf8))
        let request = String(decoding: server.request(), as: UTF8.self)
        #expect(
            request
                == "POST /login?x=1 HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nUser-Agent: eua-headless/1.0.0\r\n"
                + "Connection: close\r\nCookie: s=1\r\nContent-Length: 9\r\n\r\nsub=alice")
    }

    @Test("a host name is resolved, and the Host header names it")
    func hostName() throws {
        let server = try CannedServer(reply: Array("HTTP/1.1 204 No Content\r\n\r\n".utf8))
        let response = try MiniHTTPClient.send(host: "localhost", port: server.port, target: "/", stop: StopSignal())
        #expect(response.status == 204)
        #expect(String(decoding: server.request(), as: UTF8.self).contains("\r\nHost: localhost:\(server.port)\r\n"))
    }

    @Test("a header value with a line break is refused, not sent")
    func headerInjection() {
        #expect(throws: MiniHTTPClient.Failure.self) {
            try MiniHTTPClient.requestBytes(
                method: "GET", hostHeader: "a:1", target: "/",
                headers: [("Cookie", "a=1\r\nX-Injected: 1")], body: nil)
        }
    }

    @Test("a server that never answers ends in the deadline, with where and which step")
    func deadline() throws {
        let server = try CannedServer(reply: nil)
        let clock = ContinuousClock()
        let started = clock.now
        #expect {
            try MiniHTTPClient.send(
                host: "127.0.0.1", port: server.port, target: "/", stop: StopSignal(),
                exchangeTimeout: .milliseconds(300))
        } throws: { error in
            (error as? NetworkError)?.description
                == "reading the response from 127.0.0.1:\(server.port) took longer than 300 ms"
        }
        #expect(clock.now - started < .seconds(3))
    }

    @Test("the stop signal ends a wait at once")
    func stop() throws {
        let server = try CannedServer(reply: nil)
        let stop = try StopSignal()
        _ = try BlockingCall.start(name: "test-stopper") {
            usleep(100_000)
            stop.raise()
        }
        let clock = ContinuousClock()
        let started = clock.now
        #expect {
            try MiniHTTPClient.send(host: "127.0.0.1", port: server.port, target: "/", stop: stop)
        } throws: { error in
            (error as? NetworkError)?.kind == .stopped
        }
        #expect(clock.now - started < .seconds(3))
    }

    @Test("a refused connection and a port out of range name the endpoint")
    func refused() throws {
        #expect {
            try MiniHTTPClient.send(host: "127.0.0.1", port: 9, target: "/", stop: StopSignal())
        } throws: { error in
            "\(error)" == "127.0.0.1:9: connect failed: Connection refused"
        }
        #expect {
            try MiniHTTPClient.send(host: "::1", port: 70000, target: "/", stop: StopSignal())
        } throws: { error in
            "\(error)" == "[::1]:70000: the port is not from 1 to 65535"
        }
    }
}

/// A server for one connection on 127.0.0.1: it keeps the request's head and body, answers with fixed
/// bytes (or never, when `reply` is nil), and closes.
final class CannedServer: Sendable {
    let port: Int
    private let received = Received()
    private let done: StopSignal

    private final class Received: Sendable {
        let bytes = Mutex<[UInt8]?>(nil)
    }

    init(reply: [UInt8]?) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, size) == 0 && listen(listener, 4) == 0 && getsockname(listener, $0, &size) == 0
            }
        }
        guard bound else { throw SocketError("bind the canned server") }
        port = Int(UInt16(bigEndian: address.sin_port))
        done = try StopSignal()
        let (received, done) = (received, done)
        _ = try BlockingCall.start(name: "test-server") {
            defer { close(listener) }
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            defer { close(fd) }
            let request = Self.readRequest(fd)
            received.bytes.withLock { $0 = request }
            if let reply {
                _ = reply.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            } else {
                _ = done.wait(until: .now + .seconds(20))
            }
        }
    }

    deinit { done.raise() }

    /// The request as it arrived (waits up to 5 s for it).
    func request() -> [UInt8] {
        for _ in 0..<500 {
            if let bytes = received.bytes.withLock({ $0 }) { return bytes }
            usleep(10_000)
        }
        return []
    }

    /// Reads a head and the body its Content-Length announces (5 s at most).
    private static func readRequest(_ fd: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline, !isComplete(bytes) {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 100) >= 0 else { break }
            guard entry.revents != 0 else { continue }
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        return bytes
    }

    /// Whether `bytes` hold a whole head and the body its Content-Length announces.
    private static func isComplete(_ bytes: [UInt8]) -> Bool {
        let end: [UInt8] = [13, 10, 13, 10]
        guard let headEnd = bytes.indices.first(where: { bytes[$0...].starts(with: end) }) else { return false }
        let lines = String(decoding: bytes[..<headEnd], as: UTF8.self).split(separator: "\r\n")
        let length =
            lines.first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingPrefix(" ")) } ?? 0
        return headEnd + end.count + length <= bytes.count
    }
}
