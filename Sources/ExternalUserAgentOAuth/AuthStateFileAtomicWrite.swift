// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AuthStateFile {
    /// Replaces the file with `data` atomically, through ``PrivateFile/write(_:to:)`` (the one place of the rule:
    /// a new temporary file, mode 0600, beside it, flushed and renamed over it), so a reader sees the old state or
    /// the new, never half of one.
    func writeAtomically(_ data: Data) throws {
        do throws(PrivateFile.Failure) {
            try PrivateFile.write(data, to: path)
        } catch {
            throw invalid(error.reason)
        }
    }
}
