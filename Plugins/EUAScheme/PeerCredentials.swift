// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif

/// The process at the other end of a Unix socket, as the kernel saw it (`SO_PEERCRED`).
struct PeerCredentials {
    var pid: Int32
    var uid: UInt32

    init?(of fd: Int32) {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; }: three 32-bit fields on Linux.
        var fields: (Int32, UInt32, UInt32) = (0, 0, 0)
        var size = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &fields, &size) == 0, size == 12 else { return nil }
        pid = fields.0
        uid = fields.1
    }
}
