// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A file only this user may read, for secrets: written atomically with mode 0600 in a folder made 0700,
/// read only when it is a regular file of this user that nobody else may read. Failures are reasons, as
/// the rest of a sentence about the file. The one place of the rule: ``AuthStateFile``, the registration and the
/// key files all write through ``write(_:to:)``.
enum PrivateFile {
    struct Failure: Error {
        var reason: String
    }

    /// Writes `data` to a temporary file beside `path` (0600), flushes it and renames it over `path`.
    static func write(_ data: Data, to path: String) throws(Failure) {
        if let problem = SmallFiles.makeFolders(SmallFiles.folder(of: path), mode: 0o700) {
            throw Failure(reason: "its folder could not be made: \(problem)")
        }
        let temporary = path + ".tmp-\(getpid())-\(SecureRandom.string(length: 8))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure(reason: "a temporary file could not be made beside it: \(errnoText())") }
        var written = 0
        let ok = data.withUnsafeBytes { buffer -> Bool in
            while written < buffer.count {
                let count = Glibc.write(fd, buffer.baseAddress! + written, buffer.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                written += count
            }
            return fsync(fd) == 0
        }
        let failure = ok ? nil : errnoText()
        close(fd)
        guard ok else {
            unlink(temporary)
            throw Failure(reason: "it could not be written: \(failure ?? "unknown error")")
        }
        guard rename(temporary, path) == 0 else {
            let text = errnoText()
            unlink(temporary)
            throw Failure(reason: "it could not be replaced: \(text)")
        }
    }

    /// The largest private file read, 1 MiB: they hold a key or a registration of a few KiB.
    static let maximumSize = 1 << 20

    /// Reads `path`; `nil` when there is no file there.
    static func read(_ path: String) throws(Failure) -> Data? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw Failure(reason: "it cannot be read (\(errnoText()))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw Failure(reason: "it is not a regular file") }
        guard info.st_uid == getuid() else { throw Failure(reason: "it belongs to another user; it was not used") }
        guard info.st_mode & 0o077 == 0 else {
            throw Failure(
                reason: "others may read or change it (mode \(String(info.st_mode & 0o777, radix: 8))); it "
                    + "holds secrets, so it was not used — run 'chmod 600 \(path)' if it is yours")
        }
        do throws(SmallFiles.Failure) {
            return try SmallFiles.read(path, limit: maximumSize).map { Data($0) }
        } catch {
            throw Failure(reason: error.reason)
        }
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}
