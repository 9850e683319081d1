// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentSystem
import Synchronization

/// The thread a receiver plugin serves a flow on, and how it is stopped: `start` makes a stop signal and the
/// thread, `cancel` raises the signal from any thread — also before the thread has begun, which then stops at
/// once. Every receiver uses it, so that race is handled in one place.
package final class ServingThread: Sendable {
    private struct State {
        var stop: StopSignal?
        var cancelled = false
    }

    private let state = Mutex(State())

    package init() {}

    /// Runs `serve` on a new thread named `name` with a fresh stop signal, closed when `serve` returns. Returns
    /// why it could not start (for the receiver's `failed` event), else `nil`.
    package func start(name: String, _ serve: @escaping @Sendable (StopSignal) -> Void) -> String? {
        let stop: StopSignal
        do {
            stop = try StopSignal()
        } catch {
            return "\(error); the process may be out of file descriptors"
        }
        if state.withLock({ state in
            state.stop = stop
            return state.cancelled
        }) {
            stop.raise()
        }
        do {
            _ = try BlockingCall.start(name: name) {
                serve(stop)
                stop.close()
            }
        } catch {
            stop.close()
            return "could not start its thread: \(error)"
        }
        return nil
    }

    /// Asks the thread to stop; at once if it has not begun yet. Safe to call more than once.
    package func cancel() {
        state.withLock { state -> StopSignal? in
            state.cancelled = true
            return state.stop
        }?.raise()
    }
}
