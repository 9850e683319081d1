// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
extension Duration {
    /// Whole milliseconds, rounded down (for messages and `poll()`).
    package var wholeMilliseconds: Int64 {
        let parts = components
        return parts.seconds * 1000 + parts.attoseconds / 1_000_000_000_000_000
    }

    /// For messages: `15 s` when a whole number of seconds, else `300 ms` (rounded down).
    package var spoken: String {
        let milliseconds = wholeMilliseconds
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }
}
