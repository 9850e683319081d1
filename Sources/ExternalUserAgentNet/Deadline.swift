// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentSystem
/// A point in monotonic time a wait must not pass, and the limit it was made from (for messages).
package struct Deadline: Sendable, Comparable {
    package let instant: ContinuousClock.Instant
    package let limit: Duration

    /// `limit` from now.
    package init(after limit: Duration) {
        instant = .now + limit
        self.limit = limit
    }

    package var hasPassed: Bool { instant <= .now }

    /// The milliseconds left, rounded up so a wait never ends early; 0 once passed, at most `Int32.max`.
    package var pollTimeout: Int32 {
        Self.pollTimeout(until: instant)
    }

    /// `poll()`'s timeout for waiting until `instant`: rounded up, 0 once passed, at most `Int32.max`.
    package static func pollTimeout(until instant: ContinuousClock.Instant) -> Int32 {
        let left = instant - .now
        guard left > .zero else { return 0 }
        let milliseconds = left.wholeMilliseconds + (left == .milliseconds(left.wholeMilliseconds) ? 0 : 1)
        return Int32(clamping: milliseconds)
    }

    package static func < (lhs: Deadline, rhs: Deadline) -> Bool { lhs.instant < rhs.instant }
    package static func == (lhs: Deadline, rhs: Deadline) -> Bool { lhs.instant == rhs.instant }
}
