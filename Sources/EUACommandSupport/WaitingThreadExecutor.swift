// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Dispatch
import Synchronization

/// The thread that waits for a command's async work, lent to that work: the jobs of the task that prefers this
/// executor (and of its child tasks and default actors) run on it, one at a time, in the order they come.
///
/// Without it the waiting thread sleeps while every step of the work — each resumption after a plugin call, each
/// hop — is handed to Swift's cooperative pool, whose threads `Dispatch` starts one by one on first use.
/// Unstructured tasks (`Task { … }`) do not inherit the preference and still run on that pool. Not reentrant: a
/// job must not wait for ``Blocking`` again (the inner wait would hold the thread the outer work needs).
final class WaitingThreadExecutor: TaskExecutor, @unchecked Sendable {
    private struct State {
        var jobs: [UnownedJob] = []
        var next = 0
        var finished = false
    }

    private let state = Mutex(State())
    /// One signal per job enqueued, and one for `finish()`.
    private let ready = DispatchSemaphore(value: 0)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let taken = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            state.jobs.append(job)
            return true
        }
        if taken {
            ready.signal()
        } else {
            // After the work ended nobody waits here any more: a late job (none is expected) runs on the pool.
            globalConcurrentExecutor.enqueue(job)
        }
    }

    /// Ends `runJobs()` once the jobs enqueued before it have run.
    func finish() {
        state.withLock { $0.finished = true }
        ready.signal()
    }

    /// Runs jobs on the calling thread until `finish()`.
    func runJobs() {
        while true {
            ready.wait()
            let (job, finished) = state.withLock { state -> (UnownedJob?, Bool) in
                guard state.next < state.jobs.count else { return (nil, state.finished) }
                defer {
                    state.next += 1
                    if state.next == state.jobs.count {
                        state.jobs.removeAll(keepingCapacity: true)
                        state.next = 0
                    }
                }
                return (state.jobs[state.next], false)
            }
            if let job {
                job.runSynchronously(on: asUnownedTaskExecutor())
            } else if finished {
                return
            }
        }
    }
}
