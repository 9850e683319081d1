// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import ExternalUserAgentSystem

extension AuthStateFile {
    /// Replaces the file with `data` atomically: written to a new temporary file (mode 0600) beside it, flushed
    /// (`fsync`), and renamed over it, so a reader sees the old state or the new, never half of one.
    func writeAtomically(_ data: Data) throws {
        try makeFolder()
        let temporary = path + ".tmp-\(getpid())-\(SecureRandom.string(length: 8))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw invalid("a temporary file could not be made beside it: \(Self.errnoText())") }
        var written = 0
        let ok = data.withUnsafeBytes { buffer -> Bool in
            while written < buffer.count {
                let count = write(fd, buffer.baseAddress! + written, buffer.count - written)
                if count < 0 { if errno == EINTR { continue }; return false }
                written += count
            }
            return fsync(fd) == 0
        }
        let failure = ok ? nil : Self.errnoText()
        close(fd)
        guard ok else {
            unlink(temporary)
            throw invalid("it could not be written: \(failure ?? "unknown error")")
        }
        guard rename(temporary, path) == 0 else {
            let text = Self.errnoText()
            unlink(temporary)
            throw invalid("the new state could not replace it: \(text)")
        }
    }
}
