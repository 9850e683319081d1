// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif
import ExternalUserAgentNet

/// One accepted connection, owned by the serve loop's thread: it reads one request head, writes one
/// reply, then closes. The socket is non-blocking and close-on-exec.
final class Connection {
    enum Phase {
        /// Reading the request head, until ``deadline``.
        case reading
        /// Writing the reply.
        case writing
        /// The reply is out and our side is shut down: reading and dropping what the client still sends, so
        /// that closing does not reset the connection before the client has read the reply.
        case lingering
    }

    /// What a read came to.
    enum ReadResult {
        /// Nothing decided yet: wait for more.
        case waiting
        /// The head is complete, broken or too large: answer it.
        case answer(HTTPRequestHeadParser.Outcome)
        /// The client is gone (or the lingering is over): close.
        case close
    }

    let id: Int
    let fd: Int32
    private(set) var phase = Phase.reading
    /// When the phase's time is up: the head's deadline while reading, the reply's afterwards.
    private(set) var deadline: ContinuousClock.Instant
    /// This connection carries the accepted redirect: stopping lets its reply finish.
    var isResponding = false
    private var parser = HTTPRequestHeadParser(limit: LoopbackOptions.maxHeadBytes)
    private var reply: [UInt8] = []
    private var written = 0

    init(id: Int, fd: Int32, deadline: ContinuousClock.Instant) {
        self.id = id
        self.fd = fd
        self.deadline = deadline
    }

    deinit { close(fd) }

    /// Whether it has sent a whole request head (or broken the rules; either way it is being answered).
    var hasHead: Bool { phase != .reading }

    /// What `poll()` should wait for.
    var pollEvents: Int16 { Int16(phase == .writing ? POLLOUT : POLLIN) }

    /// Reads what has arrived into `scratch` and feeds the head parser (or drops it, when lingering).
    func read(using scratch: inout [UInt8]) -> ReadResult {
        let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count < 0 {
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? .waiting : .close
        }
        switch phase {
        case .reading where count == 0:
            let outcome = parser.outcomeAtEnd
            return outcome == .needMore ? .close : .answer(outcome)
        case .reading:
            let outcome = parser.feed(scratch[0..<count])
            return outcome == .needMore ? .waiting : .answer(outcome)
        case .writing:
            return .waiting
        case .lingering:
            return count == 0 ? .close : .waiting
        }
    }

    /// Starts writing `bytes`, which must be out (and the client done reading) by `deadline`.
    func startReply(_ bytes: [UInt8], deadline: ContinuousClock.Instant) {
        reply = bytes
        written = 0
        phase = .writing
        self.deadline = deadline
    }

    /// Writes what the socket takes; `false` when the connection is to be closed (the client is gone).
    func write() -> Bool {
        while written < reply.count {
            let sent = reply.withUnsafeBytes {
                send(fd, $0.baseAddress! + written, $0.count - written, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                return errno == EAGAIN || errno == EWOULDBLOCK
            }
            written += sent
        }
        // All out: say so with a FIN, then drain until the client closes.
        shutdown(fd, Int32(SHUT_WR))
        phase = .lingering
        reply = []
        return true
    }
}
