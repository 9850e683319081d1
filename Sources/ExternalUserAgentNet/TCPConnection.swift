// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif

/// One TCP connection for one request, on a non-blocking socket driven by `poll()`: connecting, sending
/// and receiving each wait at most until the deadline they are given, and end at once when `stop` (if any) is
/// raised. Close-on-exec; closed when released. A client connects with ``connect(host:port:deadline:stop:)``; a
/// server wraps a socket it accepted with ``init(accepted:endpoint:stop:)``.
package final class TCPConnection {
    private let fd: Int32
    private let stop: StopSignal?
    /// `host:port` as a message names it (`[::1]:8400` for IPv6).
    package let endpoint: String
    /// What this side sends and receives, for messages: a client sends the request, a server the response.
    private let sends: String, receives: String

    private init(fd: Int32, stop: StopSignal?, endpoint: String, isServer: Bool = false) {
        self.fd = fd
        self.stop = stop
        self.endpoint = endpoint
        (sends, receives) = isServer ? ("the response", "the request") : ("the request", "the response")
    }

    /// Takes over `fd`, a non-blocking socket a server accepted (closed when this is released); messages name
    /// the peer `endpoint`.
    package convenience init(accepted fd: Int32, endpoint: String, stop: StopSignal? = nil) {
        self.init(fd: fd, stop: stop, endpoint: endpoint, isServer: true)
    }

    deinit { close(fd) }

    /// Connects to `host` (a name or an IP literal, IPv6 with or without brackets) on `port`, trying each
    /// address the resolver gives in turn until `deadline`. The name is resolved by the system resolver,
    /// whose own timeout and attempts (`resolv.conf`) bound that step.
    package static func connect(host: String, port: Int, deadline: Deadline, stop: StopSignal) throws(NetworkError)
        -> TCPConnection
    {
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let endpoint = name.contains(":") ? "[\(name)]:\(port)" : "\(name):\(port)"
        guard (1...65535).contains(port) else {
            throw .failed("\(endpoint): the port is not from 1 to 65535")
        }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(name, String(port), &hints, &list)
        guard resolved == 0, let list else {
            throw .failed("\(endpoint): the name cannot be resolved (\(String(cString: gai_strerror(resolved))))")
        }
        defer { freeaddrinfo(list) }
        var lastError = NetworkError.failed("\(endpoint): the resolver gave no address")
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let address = entry {
            entry = address.pointee.ai_next
            do throws(NetworkError) {
                let fd = try open(address.pointee, endpoint: endpoint, deadline: deadline, stop: stop)
                return TCPConnection(fd: fd, stop: stop, endpoint: endpoint)
            } catch  where error.kind == .failed {
                lastError = error
            }
        }
        throw lastError
    }

    /// A connected socket to one resolved address.
    private static func open(_ address: addrinfo, endpoint: String, deadline: Deadline, stop: StopSignal)
        throws(NetworkError) -> Int32
    {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        let fd = socket(address.ai_family, type, address.ai_protocol)
        guard fd >= 0 else { throw .failed("\(endpoint): \(SocketError("socket"))") }
        do throws(NetworkError) {
            if Glibc.connect(fd, address.ai_addr, address.ai_addrlen) != 0 {
                guard errno == EINPROGRESS else { throw .failed("\(endpoint): \(SocketError("connect"))") }
                try wait(fd, for: Int16(POLLOUT), until: deadline, stop: stop, step: "connecting to \(endpoint)")
                var problem: Int32 = 0
                var size = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &problem, &size)
                guard problem == 0 else { throw .failed("\(endpoint): \(SocketError("connect", problem))") }
            }
            return fd
        } catch {
            close(fd)
            throw error
        }
    }

    /// Sends all of `bytes`.
    package func send(_ bytes: [UInt8], until deadline: Deadline) throws(NetworkError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent >= 0 {
                offset += sent
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                try Self.wait(
                    fd, for: Int16(POLLOUT), until: deadline, stop: stop, step: "sending \(sends) to \(endpoint)")
            } else if errno != EINTR {
                throw .failed("\(endpoint): \(SocketError("send"))")
            }
        }
    }

    /// Reads what has arrived into `buffer` (waiting for something): the count, 0 when the peer has closed.
    package func receive(into buffer: inout [UInt8], until deadline: Deadline) throws(NetworkError) -> Int {
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count >= 0 { return count }
            if errno == EAGAIN || errno == EWOULDBLOCK {
                try Self.wait(
                    fd, for: Int16(POLLIN), until: deadline, stop: stop, step: "reading \(receives) from \(endpoint)")
            } else if errno != EINTR {
                throw .failed("\(endpoint): \(SocketError("recv"))")
            }
        }
    }

    /// Waits until `fd` is ready for `events` (or has an error to report), the deadline passes, or `stop` is raised.
    private static func wait(
        _ fd: Int32, for events: Int16, until deadline: Deadline, stop: StopSignal?,
        step: String
    ) throws(NetworkError) {
        var entries = [
            pollfd(fd: fd, events: events, revents: 0),
            pollfd(fd: stop?.descriptor ?? -1, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            if stop?.isRaised == true { throw .stopped }
            guard !deadline.hasPassed else { throw .timedOut(step, after: deadline.limit) }
            entries[0].revents = 0
            entries[1].revents = 0
            let ready = poll(&entries, nfds_t(entries.count), deadline.pollTimeout)
            if ready < 0 {
                guard errno == EINTR else { throw .failed("\(step): \(SocketError("poll"))") }
                continue
            }
            if entries[1].revents != 0 { throw .stopped }
            if entries[0].revents != 0 { return }
        }
    }
}
