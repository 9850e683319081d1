import Dispatch
import Synchronization

/// Runs async work from a synchronous command and waits for it.
///
/// `eua`'s `main` is synchronous on purpose: with an `async` main the process exits from the main
/// dispatch queue, and a plugin that loads Foundation takes that queue over, so `eua` would never exit.
/// Here the main thread simply waits while the work runs on Swift's cooperative pool.
enum Blocking {
    static func run<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) throws -> Value {
        let result = Mutex<Result<Value, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let outcome: Result<Value, any Error>
            do { outcome = .success(try await work()) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }
}
