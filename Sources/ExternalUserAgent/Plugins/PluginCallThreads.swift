import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The threads plugin calls run on. Every call gets a thread to itself at once, as if each had a new one, so a
/// call that never returns holds only its own thread and delays no other; but a thread whose call has returned
/// waits a while (``idleTime``) for the next call instead of ending, so the many short calls of one command
/// (loading, make, start, cancel, free) reuse a few threads rather than start one each.
final class PluginCallThreads: Sendable {
    /// The threads of this process's plugin calls.
    static let shared = PluginCallThreads()

    init() {}

    /// How long a thread with nothing to do waits for a call before it ends.
    static let idleTime: Duration = .seconds(2)

    /// One thread's mailbox: the call handed to it, and the signal that one was.
    private final class Worker: Sendable {
        let job = Mutex<(@Sendable () -> Void)?>(nil)
        let wake = DispatchSemaphore(value: 0)
    }

    private let idle = Mutex<[Worker]>([])

    /// Runs `work` on an idle thread, or on a new one when none is idle (or none can be made: then on this one).
    func run(_ work: @escaping @Sendable () -> Void) {
        if let worker = idle.withLock({ $0.popLast() }) {
            worker.job.withLock { $0 = work }
            worker.wake.signal()
            return
        }
        let worker = Worker()
        worker.job.withLock { $0 = work }
        let context = Unmanaged.passRetained(Box { [self] in serve(worker) }).toOpaque()
        var thread = pthread_t()
        if pthread_create(&thread, nil, { context in
            Unmanaged<Box>.fromOpaque(context!).takeRetainedValue().body()
            return nil
        }, context) == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<Box>.fromOpaque(context).release()
            work()
        }
    }

    /// A thread's life: run the call it was given, offer itself as idle, and end after ``idleTime`` without one.
    private func serve(_ worker: Worker) {
        while true {
            if let job = worker.job.withLock({ job in defer { job = nil }; return job }) { job() }
            idle.withLock { $0.append(worker) }
            if worker.wake.wait(timeout: .after(Self.idleTime)) == .timedOut {
                // Gone from the list: a caller took it just now and its signal is on the way.
                let stillIdle = idle.withLock { list in
                    guard let index = list.firstIndex(where: { $0 === worker }) else { return false }
                    list.remove(at: index)
                    return true
                }
                if stillIdle { return }
                worker.wake.wait()
            }
        }
    }

    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }
}
