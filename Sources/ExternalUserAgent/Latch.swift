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
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Bool in
                    if state.signaled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if ready { continuation.resume(returning: true) }
            }
        } onCancel: {
            giveUp(id)
        }
    }

    private func giveUp(_ id: Int) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: false)
    }
}
