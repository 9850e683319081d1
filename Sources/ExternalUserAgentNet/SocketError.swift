// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif

/// A failed system call: which one (and on what), and the `errno` it left.
package struct SocketError: Error, CustomStringConvertible, Sendable {
    /// What was being done, such as `bind to 127.0.0.1:8400`.
    package var operation: String
    /// The `errno` value.
    package var code: Int32

    package init(_ operation: String, _ code: Int32 = errno) {
        self.operation = operation
        self.code = code
    }

    package var description: String {
        "\(operation) failed: \(String(cString: strerror(code)))"
    }
}
