// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Dispatch
import Synchronization

/// Runs async work from a synchronous command and waits for it.
///
/// `eua`'s `main` is synchronous on purpose: with an `async` main the process exits from the main
/// dispatch queue, and a plugin that loads Foundation takes that queue over, so `eua` would never exit.
/// Here the waiting thread runs the work itself (``WaitingThreadExecutor``); what the work starts with
/// `Task { … }` runs on Swift's cooperative pool.
package enum Blocking {
    /// The priority of a command's tasks: the one the tasks that plugin threads start get (a thread of no QoS
    /// class starts `.medium` tasks), so that the cooperative pool runs one set of threads for the command, not
    /// one per QoS class (a task started from the main thread would otherwise be `.userInitiated`).
    package static let priority = TaskPriority.medium

    package static func run<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) throws -> Value {
        let result = Mutex<Result<Value, any Error>?>(nil)
        let executor = WaitingThreadExecutor()
        Task(executorPreference: executor, priority: priority) {
            let outcome: Result<Value, any Error>
            do { outcome = .success(try await work()) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
            executor.finish()
        }
        executor.runJobs()
        return try result.withLock { $0! }.get()
    }
}

extension Blocking {
    /// Like ``run(_:)``, but SIGINT/SIGTERM cancel the work's task (so a session closes its receiver and
    /// ends an owned browser) and the result says whether that happened.
    package static func runInterruptible<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value)
        -> (result: Result<Value, any Error>, interrupted: Bool)
    {
        let result = Mutex<Result<Value, any Error>?>(nil)
        let interrupted = Mutex(false)
        let executor = WaitingThreadExecutor()
        let task = Task(executorPreference: executor, priority: priority) {
            let outcome: Result<Value, any Error>
            do { outcome = .success(try await work()) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
            executor.finish()
        }
        let handler = InterruptHandler.install {
            interrupted.withLock { $0 = true }
            task.cancel()
        }
        executor.runJobs()
        handler.remove()
        return (result.withLock { $0! }, interrupted.withLock { $0 })
    }
}
