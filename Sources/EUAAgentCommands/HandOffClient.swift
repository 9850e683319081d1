// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentRules
#if canImport(Glibc)
import Glibc
#endif

/// The handler's side of the hand-off exchange (see ``PrivateUseScheme``).
enum HandOffClient {
    enum Outcome: Equatable {
        case taken
        case nobodyWaiting
        case refused(String)
        case failed(String)
    }

    /// Sends `url` to the flow listening at `path` and reads its answer, each step within the exchange time.
    static func send(_ url: String, to path: String) -> Outcome {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failed("socket(AF_UNIX) failed: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var limit = timeval(tv_sec: PrivateUseScheme.exchangeSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard path.utf8.count < 108 else { return .failed("the socket path \(path) is too long for a Unix socket") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            if errno == ENOENT || errno == ECONNREFUSED { return .nobodyWaiting }
            return .failed("could not connect to \(path): \(String(cString: strerror(errno)))")
        }
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; }
        var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
        var size = socklen_t(12)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0, credentials.1 == getuid() else {
            return .failed("the process listening at \(path) is not yours (uid \(credentials.1)); the URL was not sent")
        }
        let bytes = Array((url + "\n").utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                return .failed("the waiting sign-in stopped reading (\(String(cString: strerror(errno))))")
            }
            sent += count
        }
        shutdown(fd, Int32(SHUT_WR))
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while reply.count < 1024, !reply.contains(UInt8(ascii: "\n")) {
            let count = read(fd, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            if count < 0 {
                return .failed("the waiting sign-in did not answer within \(PrivateUseScheme.exchangeSeconds) s")
            }
            if count == 0 { break }
            reply += buffer[..<count]
        }
        let line = String(decoding: reply.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        if line == PrivateUseScheme.acceptedReply { return .taken }
        if line.hasPrefix(PrivateUseScheme.refusedPrefix) {
            return .refused(String(line.dropFirst(PrivateUseScheme.refusedPrefix.count)))
        }
        return .failed("the waiting sign-in gave no answer")
    }
}
