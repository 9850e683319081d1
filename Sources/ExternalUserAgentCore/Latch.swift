// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Synchronization

/// A flag that is set once and can be awaited with a time limit by any number of waiters.
///
/// Unlike ``OneShot``, a waiter that gives up (time out, task cancelled) does not set it:
/// only `signal()` does. Used for "the plugin sent its terminal event".
final class Latch: Sendable {
    private struct State {
        var signaled = false
        var nextID = 0
        var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
        /// Waiters whose time ran out (or whose task was cancelled) before they were registered.
        var expired: Set<Int> = []
    }

    private let state = Mutex(State())

    init() {}

    /// Sets the latch; returns `false` if it was already set.
    @discardableResult
    func signal() -> Bool {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>]? in
            guard !state.signaled else { return nil }
            state.signaled = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        guard let waiters else { return false }
        for waiter in waiters { waiter.resume(returning: true) }
        return true
    }

    var isSignaled: Bool { state.withLock { $0.signaled } }

    /// Waits until the latch is set (`true`) or `timeout` passes or the task is cancelled (`false`).
    func wait(timeout: Duration) async -> Bool {
        let id = state.withLock { state -> Int in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.giveUp(id)
        }
        defer {
            timer.cancel()
            state.withLock { _ = $0.expired.remove(id) }
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // The timer may have run out before this registration: then it left the id in `expired`.
                let ready = state.withLock { state -> Bool? in
                    if state.signaled { return true }
                    if state.expired.remove(id) != nil { return false }
                    state.waiters[id] = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            giveUp(id)
        }
    }

    private func giveUp(_ id: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard let waiter = state.waiters.removeValue(forKey: id) else {
                if !state.signaled { state.expired.insert(id) }
                return nil
            }
            return waiter
        }
        waiter?.resume(returning: false)
    }
}
