import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback HTTP server for tests that answers one request with 200 and records its request line
/// and headers. Plain sockets: it only has to notice what a client sent.
public final class OneRequestHTTPServer: @unchecked Sendable {
    public let port: Int
    private let socketFD: Int32
    private let lock = NSLock()
    private var requestText: String?
    private let done = DispatchSemaphore(value: 0)

    public init() throws {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { throw TestSupportError("socket() failed") }
        self.socketFD = socketFD
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(socketFD, 4) == 0 else { throw TestSupportError("bind/listen failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketFD, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let fd = socketFD
        Thread.detachNewThread { [self] in
            let client = accept(fd, nil, nil)
            guard client >= 0 else { done.signal(); return }
            var received = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !received.contains(subsequence: Array("\r\n\r\n".utf8)) {
                let count = read(client, &buffer, buffer.count)
                if count <= 0 { break }
                received += buffer[0..<count]
            }
            let reply = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
            _ = reply.withCString { write(client, $0, strlen($0)) }
            close(client)
            lock.lock()
            requestText = String(decoding: received, as: UTF8.self)
            lock.unlock()
            done.signal()
        }
    }

    /// The request the server received, waiting up to `timeout` seconds for it.
    public func request(timeout: TimeInterval = 10) -> String? {
        _ = done.wait(timeout: .now() + timeout)
        lock.lock()
        defer { lock.unlock() }
        return requestText
    }

    deinit { close(socketFD) }
}

extension Array where Element: Equatable {
    fileprivate func contains(subsequence: [Element]) -> Bool {
        guard count >= subsequence.count else { return false }
        return (0...(count - subsequence.count)).contains { Array(self[$0..<($0 + subsequence.count)]) == subsequence }
    }
}
