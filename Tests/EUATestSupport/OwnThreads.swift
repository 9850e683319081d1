// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentSystem
import Testing

/// Runs each test of a suite on threads of its own instead of Swift's cooperative pool: for tests that wait
/// synchronously (a child process, a compiler, a blocking socket). The pool has as many threads as the machine has
/// cores (two here), and the suite runs in parallel: two such tests on the pool would stall every other test's
/// async work, whose deadlines then fail for a reason that has nothing to do with them.
///
/// The test's task keeps its task-local values (Swift Testing's `#expect` needs them); only the threads its jobs run
/// on change (``BlockingThreadExecutor``).
public struct OwnThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withTaskExecutorPreference(BlockingThreadExecutor.shared) { try await function() }
    }
}

extension Trait where Self == OwnThreadsTrait {
    /// The suite's (or test's) synchronous waits run on threads of their own, never on the cooperative pool.
    public static var onOwnThreads: Self { OwnThreadsTrait() }
}

/// A task executor that runs every job on a thread of its own (``BlockingCall``'s threads: an idle one, else a new
/// one), so a job that blocks holds only that thread.
public final class BlockingThreadExecutor: TaskExecutor {
    /// The one executor the tests use.
    public static let shared = BlockingThreadExecutor()

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        do {
            _ = try BlockingCall.start(name: "eua-test") { job.runSynchronously(on: executor) }
        } catch {
            // No thread to be had: the job still runs, on the pool.
            globalConcurrentExecutor.enqueue(ExecutorJob(job))
        }
    }
}
