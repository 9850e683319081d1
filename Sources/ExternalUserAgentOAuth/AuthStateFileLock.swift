// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import ExternalUserAgentCore
import Synchronization

/// The lock of an ``AuthStateFile``: an advisory `flock` on ``AuthStateFile/lockPath`` that processes changing the
/// same state take turns with.
extension AuthStateFile {
    /// An advisory lock on ``lockPath``, held until `release()` (or the process ends).
    final class Lock: Sendable {
        private let descriptor: Mutex<Int32>

        fileprivate init(descriptor: Int32) {
            self.descriptor = Mutex(descriptor)
        }

        /// Releases the lock; later calls do nothing.
        func release() {
            descriptor.withLock { fd in
                if fd >= 0 { close(fd) }
                fd = -1
            }
        }

        deinit { release() }
    }

    /// Takes the lock, waiting up to ``lockTimeout`` for another process to release it.
    ///
    /// A lock is released when its process ends, however it ends, so a lock that stays taken is held by
    /// a running process. Throws `timedOut` naming the lock file, `stateFileInvalid` when the lock file
    /// cannot be used, `programCanceled` when the task is cancelled while waiting.
    func lock() async throws -> Lock {
        try makeFolder()
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw invalid("its lock file \(lockPath) cannot be opened: \(Self.errnoText())") }
        let lock = Lock(descriptor: fd)
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == getuid() else {
            throw invalid("its lock file \(lockPath) is not a regular file of this user; remove it")
        }
        if info.st_mode & 0o077 != 0 { fchmod(fd, 0o600) }
        let deadline = ContinuousClock.now + lockTimeout
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let error = errno
            guard error == EWOULDBLOCK || error == EINTR else {
                throw invalid("its lock file \(lockPath) cannot be locked: \(String(cString: strerror(error)))")
            }
            guard ContinuousClock.now < deadline else {
                throw ExternalUserAgentError(
                    .timedOut,
                    "authorization state file \(path): another process has held its lock (\(lockPath)) for more "
                        + "than \(lockTimeout); it may be refreshing with a slow server — try again, or stop that "
                        + "process (a lock ends with its process)")
            }
            do {
                try await Task.sleep(for: .milliseconds(20))
            } catch {
                throw ExternalUserAgentError(.programCanceled, "waiting for the lock on \(lockPath) was cancelled")
            }
        }
        return lock
    }
}
