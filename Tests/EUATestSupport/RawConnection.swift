// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP client for hostile tests: sends exactly the bytes it is given, reads whatever comes back.
public final class RawConnection: @unchecked Sendable {
    private var fd: Int32

    /// Connects to `host` (`127.0.0.1` or `::1`) on `port`; throws when refused.
    public init(host: String = "127.0.0.1", port: Int) throws {
        let ipv6 = host.contains(":")
        fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestSupportError("socket() failed") }
        var result: Int32
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = UInt16(port).bigEndian
            inet_pton(AF_INET6, host, &address.sin6_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr.s_addr = inet_addr(host)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            fd = -1
            throw TestSupportError("connect to \(host):\(port) failed: \(reason)")
        }
    }

    /// Whether a connection to `host:port` is refused right now.
    public static func isRefused(host: String = "127.0.0.1", port: Int) -> Bool {
        (try? RawConnection(host: host, port: port)) == nil
    }

    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }

    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Reads until the peer closes or `timeout` passes; returns what arrived.
    public func readAll(timeout: TimeInterval = 10) -> String {
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 16384)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 100)
            if ready <= 0 { continue }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// The status code of the HTTP response read from the connection (0 when none came).
    public func status(timeout: TimeInterval = 10) -> Int {
        Self.status(of: readAll(timeout: timeout))
    }

    public static func status(of response: String) -> Int {
        let line = response.split(separator: "\r\n").first ?? ""
        let parts = line.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/") else { return 0 }
        return Int(parts[1]) ?? 0
    }

    public func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    deinit { close() }
}

/// How many of this process's file descriptors are TCP sockets whose local port is one of `ports` (listening or
/// connected): a leak check that other tests running at the same time, with descriptors of their own, cannot upset.
public func openSocketCount(localPorts ports: Set<Int>) -> Int {
    var inodes = Set<String>()
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let text = (try? String(contentsOfFile: table, encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
            guard fields.count > 9, let colon = fields[1].lastIndex(of: ":"),
                let port = Int(fields[1][fields[1].index(after: colon)...], radix: 16), ports.contains(port)
            else { continue }
            inodes.insert(String(fields[9]))
        }
    }
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return descriptors.filter { descriptor in
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + descriptor),
            target.hasPrefix("socket:["), target.hasSuffix("]")
        else { return false }
        return inodes.contains(String(target.dropFirst("socket:[".count).dropLast()))
    }.count
}
