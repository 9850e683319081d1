// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif
import ExternalUserAgentRules
import ExternalUserAgentNet

/// The scheme's listening Unix socket in `$XDG_RUNTIME_DIR/eua/` (folder 0700, socket 0600), close-on-exec
/// and non-blocking. One flow per scheme: a second start finds the first one listening and says which process it is.
struct HandOffSocket {
    let fd: Int32
    let path: String
    private let inode: ino_t

    /// What stops a socket from being made, said so a person can act on it.
    struct Failure: Error {
        var message: String
    }

    /// Makes the folder if needed, refuses a folder that is not this user's alone, and listens at the scheme's path.
    static func listen(scheme: String, runtimeDirectory: String?) throws(Failure) -> HandOffSocket {
        guard let folder = PrivateUseScheme.socketFolder(runtimeDirectory: runtimeDirectory) else {
            throw Failure(
                message: "XDG_RUNTIME_DIR is not set to an absolute path, and the hand-off socket lives there; "
                    + "run inside a desktop or systemd --user session (or set XDG_RUNTIME_DIR to a folder only you can use)"
            )
        }
        try prepare(folder: folder)
        let path = PrivateUseScheme.socketPath(folder: folder, scheme: scheme)
        if let holder = try currentListener(at: path) {
            throw Failure(
                message: "another flow is already waiting on scheme '\(scheme)' (\(holder), socket \(path)); "
                    + "finish or cancel that sign-in first: one flow per scheme at a time")
        }
        let fd = socket(
            AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw Failure(message: "\(SocketError("socket(AF_UNIX)"))") }
        let bound = withAddress(path) { bind(fd, $0, $1) }
        guard bound == 0 else {
            let error = SocketError("bind to \(path)")
            _ = Glibc.close(fd)
            throw Failure(
                message: error.code == EADDRINUSE
                    ? "another flow started waiting on scheme '\(scheme)' at the same moment (\(path)); one flow per scheme at a time"
                    : "\(error)")
        }
        guard chmod(path, 0o600) == 0, Glibc.listen(fd, 16) == 0 else {
            let error = SocketError("chmod 0600 / listen on \(path)")
            _ = Glibc.close(fd)
            unlink(path)
            throw Failure(message: "\(error)")
        }
        var info = stat()
        lstat(path, &info)
        return HandOffSocket(fd: fd, path: path, inode: info.st_ino)
    }

    /// Closes the socket and removes its path, unless another flow's socket has replaced it since.
    func close() {
        var info = stat()
        if lstat(path, &info) == 0, info.st_ino == inode { unlink(path) }
        _ = Glibc.close(fd)
    }

    /// Creates `folder` with mode 0700, or checks that an existing one is a real folder of this user's that
    /// nobody else can enter.
    private static func prepare(folder: String) throws(Failure) {
        if mkdir(folder, 0o700) != 0, errno != EEXIST {
            throw Failure(message: "\(SocketError("mkdir \(folder)")); check XDG_RUNTIME_DIR")
        }
        var info = stat()
        guard lstat(folder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw Failure(message: "\(folder) is not a folder (a symbolic link or a file is in the way); remove it")
        }
        guard info.st_uid == getuid() else {
            throw Failure(message: "\(folder) belongs to uid \(info.st_uid), not to you (uid \(getuid())); remove it")
        }
        if info.st_mode & 0o077 != 0, chmod(folder, 0o700) != 0 {
            throw Failure(message: "\(folder) can be entered by other users and could not be set to 0700; fix its mode")
        }
    }

    /// Who listens at `path` now (a process description), or `nil` when nobody does (a stale socket is removed).
    private static func currentListener(at path: String) throws(Failure) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            throw Failure(message: "\(path) exists and is not a socket; remove it")
        }
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { throw Failure(message: "\(SocketError("socket(AF_UNIX)"))") }
        defer { _ = Glibc.close(probe) }
        if withAddress(path, { connect(probe, $0, $1) }) == 0 {
            guard let peer = PeerCredentials(of: probe) else { return "a process of yours" }
            return "process \(peer.pid)\(processName(peer.pid).map { " (\($0))" } ?? "")"
        }
        unlink(path)
        return nil
    }

    /// The command name of process `pid`, from `/proc`.
    private static func processName(_ pid: Int32) -> String? {
        let fd = open("/proc/\(pid)/comm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { _ = Glibc.close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(fd, &buffer, buffer.count)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n").first.map(String.init)
    }

    /// Calls `body` with a `sockaddr_un` for `path`.
    static func withAddress<T>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}
