// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Synchronization

/// A value that is set at most once and awaited by one caller; later sets return `false`.
///
/// The bridge from C callbacks to `async`: whichever of "the plugin answered", "the wait was
/// cancelled" or "the time ran out" comes first wins, and the others are ignored.
final class OneShot<Value: Sendable>: Sendable {
    private struct State {
        var result: Result<Value, any Error>?
        var waiter: CheckedContinuation<Value, any Error>?
    }

    private let state = Mutex(State())

    init() {}

    /// Sets the result; returns `false` if one was already set.
    @discardableResult
    func fulfill(_ result: Result<Value, any Error>) -> Bool {
        let outcome = state.withLock { state -> (Bool, CheckedContinuation<Value, any Error>?) in
            guard state.result == nil else { return (false, nil) }
            state.result = result
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        outcome.1?.resume(with: result)
        return outcome.0
    }

    /// Waits for the result; a cancelled task gets `CancellationError` (and the one-shot is spent).
    func value() async throws -> Value {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready = state.withLock { state -> Result<Value, any Error>? in
                    if let result = state.result { return result }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            fulfill(.failure(CancellationError()))
        }
    }

}
