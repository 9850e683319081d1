// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif
import CExternalUserAgentNet
import Synchronization

/// Wakes a thread waiting in `poll()` when its work is to stop (cancel, shutdown): an eventfd that
/// ``raise()`` makes readable for good.
///
/// Any thread may raise it, at any time, even after ``close()``. The thread that polls ``descriptor``
/// closes it when it is done, so a finished flow holds no descriptor.
package final class StopSignal: Sendable {
    /// Readable once raised; valid until ``close()``.
    package let descriptor: Int32
    private let state = Mutex((raised: false, open: true))

    package init() throws(SocketError) {
        let fd = eua_net_eventfd()
        guard fd >= 0 else { throw SocketError("eventfd") }
        descriptor = fd
    }

    package var isRaised: Bool { state.withLock { $0.raised } }

    /// Asks the work to stop; again is harmless.
    package func raise() {
        state.withLock { state in
            guard !state.raised else { return }
            state.raised = true
            guard state.open else { return }
            var one: UInt64 = 1
            _ = write(descriptor, &one, MemoryLayout<UInt64>.size)
        }
    }

    /// Waits until `deadline` (`nil`: no end) or until raised; `true` when raised.
    package func wait(until deadline: ContinuousClock.Instant?) -> Bool {
        while !isRaised {
            if let deadline, deadline <= .now { return false }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let timeout = deadline.map(Deadline.pollTimeout(until:)) ?? -1
            if poll(&entry, 1, timeout) < 0, errno != EINTR { return isRaised }
        }
        return true
    }

    /// Closes the descriptor (again is harmless); the signal can still be raised and read.
    package func close() {
        state.withLock { state in
            guard state.open else { return }
            state.open = false
            _ = Glibc.close(descriptor)
        }
    }

    deinit { close() }
}
