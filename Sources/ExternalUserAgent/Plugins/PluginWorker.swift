import Dispatch
import Synchronization

/// One long-lived thread that runs synchronous plugin calls one after another, so that loading seven plugins
/// starts one thread for their `describe()` calls instead of seven.
///
/// A call that overruns its deadline leaves its worker blocked inside the plugin: that worker is retired (the
/// next call gets a fresh one) and the calls queued behind it move to the fresh one. Each call gets its full
/// deadline from the moment it starts running; one still queued when its caller's deadline passes is taken
/// back and run on a thread of its own, so a hung plugin never delays another past two deadlines.
final class PluginWorker: Sendable {
    /// A call handed to a worker: queued, then running (since when), then done or taken back by its caller.
    final class Job: Sendable {
        enum Phase { case queued, running(since: ContinuousClock.Instant), finished, takenBack }

        let body: @Sendable () -> Void
        let phase = Mutex(Phase.queued)
        let done = DispatchSemaphore(value: 0)

        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    private struct State {
        var queue: [Job] = []
        var retired = false
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)

    /// The worker new calls go to; replaced when it is retired.
    private static let current = Mutex<PluginWorker?>(nil)

    private init() {
        PluginCall.detach { [self] in loop() }
    }

    /// Queues `job` on the current worker, making one first if there is none.
    static func submit(_ job: Job) {
        currentOrNew().enqueue([job])
    }

    /// The worker new calls go to, made now if there is none.
    private static func currentOrNew() -> PluginWorker {
        current.withLock { current in
            if let worker = current { return worker }
            let worker = PluginWorker()
            current = worker
            return worker
        }
    }

    /// Runs `work` on the worker and waits up to `timeout` from the moment it starts; `nil` when it overran.
    static func run<Value: Sendable>(timeout: Duration, _ work: @escaping @Sendable () -> Value) -> Value? {
        let result = ResultBox<Value>()
        let job = Job { result.set(work()) }
        submit(job)
        var deadline = ContinuousClock.now + timeout
        while true {
            if job.done.wait(timeout: .after(deadline - .now)) == .success {
                return result.get()
            }
            let phase = job.phase.withLock { phase -> Job.Phase in
                if case .queued = phase { phase = .takenBack; return .queued }
                return phase
            }
            switch phase {
            case .queued, .takenBack:
                return PluginCall.runOnOwnThread(timeout: timeout, work)
            case .finished:
                // Set after `done` was signalled: this wait returns at once.
                job.done.wait()
                return result.get()
            case .running(let since):
                if since + timeout > deadline {
                    deadline = since + timeout
                    continue
                }
                retire(ownerOf: job)
                return nil
            }
        }
    }

    /// Retires the current worker if `job` is blocking it, moving the calls queued behind it to a fresh one.
    private static func retire(ownerOf job: Job) {
        let stranded = current.withLock { current -> [Job] in
            guard let worker = current, worker.isRunning(job) else { return [] }
            current = nil
            return worker.state.withLock { state in
                state.retired = true
                defer { state.queue = [] }
                return state.queue
            }
        }
        guard !stranded.isEmpty else { return }
        currentOrNew().enqueue(stranded)
    }

    private let running = Mutex<ObjectIdentifier?>(nil)

    private func isRunning(_ job: Job) -> Bool { running.withLock { $0 == ObjectIdentifier(job) } }

    private func enqueue(_ jobs: [Job]) {
        state.withLock { $0.queue += jobs }
        for _ in jobs { wake.signal() }
    }

    private func loop() {
        while true {
            wake.wait()
            let (retired, next) = state.withLock { state -> (Bool, Job?) in
                (state.retired, state.retired || state.queue.isEmpty ? nil : state.queue.removeFirst())
            }
            if retired { return }
            guard let job = next else { continue }
            let starts = job.phase.withLock { phase -> Bool in
                guard case .queued = phase else { return false }
                phase = .running(since: .now)
                return true
            }
            guard starts else { continue }
            running.withLock { $0 = ObjectIdentifier(job) }
            job.body()
            running.withLock { $0 = nil }
            job.done.signal()
            job.phase.withLock { $0 = .finished }
        }
    }
}
