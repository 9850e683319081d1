// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization

/// One blocking call — a C function that may never return (a plugin's `describe()`), a `poll()` loop, `waitpid`, an
/// `fsync` — on a thread of its own, never on Swift's cooperative pool, whose few threads (two on a two-core
/// machine) every task of the process shares.
///
/// The call starts at once on a thread of this process's set (``start(name:_:)``): an idle one, else a new one, so a
/// call never waits behind another. Its caller waits with a deadline counted from that start, blocking
/// (``wait(timeout:)``, for a thread that is not the pool's) or suspended (``value(timeout:)``). At the deadline the
/// caller is released with `timedOut`; the thread goes on running the stuck call — it cannot be stopped, and what the
/// call uses must not be freed under it — and is abandoned: it takes no other call unless that one returns.
///
/// A thread whose call returned waits ``idleTime`` for the next call before it ends, so the many short calls of one
/// command (loading plugins, make, start, cancel, free) reuse a few threads instead of starting one each. The set is
/// per copy of this module: a plugin, which embeds its own copy, has threads of its own.
package final class BlockingCall<Value: Sendable>: Sendable {
    /// How a wait for the call ended.
    package enum Outcome: Sendable {
        /// The call returned this.
        case returned(Value)
        /// The deadline passed first; the call is still running on its thread.
        case timedOut
        /// The waiting task was cancelled first; the call is still running on its thread.
        case cancelled
    }

    /// When the call started running (a call starts when it is made).
    package let started: ContinuousClock.Instant

    private struct State {
        var value: Value?
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Outcome, Never>] = [:]
        /// Waiters released (deadline, cancellation) before they were registered.
        var released: [Int: Outcome] = [:]
    }

    private let state = Mutex(State())
    /// Signalled once when the call returns; a blocking waiter that takes the signal passes it on.
    private let returned = DispatchSemaphore(value: 0)

    private init(started: ContinuousClock.Instant) {
        self.started = started
    }

    /// Starts `work` now on a thread of its own (an idle one of `threads`, else a new one, named `name` when given: at
    /// most 15 bytes are kept). Throws when no thread can be made; `work` is not run then.
    package static func start(
        name: String? = nil, on threads: BlockingThreads = .shared,
        _ work: @escaping @Sendable () -> Value
    ) throws(ThreadUnavailable) -> BlockingCall {
        let call = BlockingCall(started: .now)
        try threads.run(name: name) { call.finish(work()) }
        return call
    }

    /// Whether the call has returned.
    package var hasReturned: Bool { state.withLock { $0.value != nil } }

    /// What the call returned, blocking this thread until it does or until `timeout` from its start has passed
    /// (`nil`). For threads outside the cooperative pool; async code awaits ``value(timeout:)``.
    package func wait(timeout: Duration) -> Value? {
        guard returned.wait(timeout: .after(started + timeout - .now)) == .success else { return nil }
        returned.signal()
        return state.withLock { $0.value }
    }

    /// What the call returned, blocking this thread until it does: for a call that ends by itself (its own deadlines).
    package func wait() -> Value {
        returned.wait()
        returned.signal()
        return state.withLock { $0.value! }
    }

    /// What the call returned, suspending until it does, until `timeout` from its start has passed, or until this
    /// task is cancelled — without holding a thread of the cooperative pool.
    package func value(timeout: Duration) async -> Outcome {
        await outcome(deadline: started + timeout, cancellable: true)
    }

    /// What the call returned, suspending until it does, until `deadline`, or until this task is cancelled.
    package func value(until deadline: ContinuousClock.Instant) async -> Outcome {
        await outcome(deadline: deadline, cancellable: true)
    }

    /// What the call returned, suspending until it does, even when this task is cancelled: for a call that ends by
    /// itself (its own deadline, a stop signal) and whose effect counts.
    package func value() async -> Value {
        guard case .returned(let value) = await outcome(deadline: nil, cancellable: false) else {
            preconditionFailure("a wait without deadline or cancellation ended before the call returned")
        }
        return value
    }

    /// What the call returned, suspending until it does, with a deadline (`nil`: none) and, when `cancellable`, an end
    /// when this task is cancelled.
    private func outcome(deadline: ContinuousClock.Instant?, cancellable: Bool) async -> Outcome {
        let id = state.withLock { state -> Int? in
            guard state.value == nil else { return nil }
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        guard let id else { return state.withLock { .returned($0.value!) } }
        let timer = deadline.map { deadline in
            Task { [weak self] in
                try? await Task.sleep(until: deadline, clock: .continuous)
                self?.release(id, with: .timedOut)
            }
        }
        defer {
            timer?.cancel()
            state.withLock { _ = $0.released.removeValue(forKey: id) }
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Outcome? in
                    if let value = state.value { return .returned(value) }
                    if let outcome = state.released.removeValue(forKey: id) { return outcome }
                    state.waiters[id] = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            if cancellable { release(id, with: .cancelled) }
        }
    }

    private func release(_ id: Int, with outcome: Outcome) {
        let waiter = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
            if let waiter = state.waiters.removeValue(forKey: id) { return waiter }
            if state.value == nil, state.released[id] == nil { state.released[id] = outcome }
            return nil
        }
        waiter?.resume(returning: outcome)
    }

    private func finish(_ value: Value) {
        let waiters = state.withLock { state in
            state.value = value
            state.released = [:]
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        returned.signal()
        for waiter in waiters { waiter.resume(returning: .returned(value)) }
    }
}

extension BlockingCall {
    /// Runs `work` off the cooperative pool and awaits what it returns or throws, however long it takes and even when
    /// this task is cancelled: for blocking work that ends by itself and whose effect counts (an `fsync`, a D-Bus call
    /// with its own timeout). Throws ``ThreadUnavailable`` when no thread can be made, before `work` runs.
    package static func run<Failure: Error>(
        name: String? = nil, _ work: @escaping @Sendable () throws(Failure) -> Value
    ) async throws -> Value {
        try await BlockingCall<Result<Value, Failure>>.start(name: name) { Result(catching: work) }.value().get()
    }
}

/// No thread could be made for a blocking call (`pthread_create` failed: the process or the user is at its thread
/// limit, or memory is short).
package struct ThreadUnavailable: Error, Sendable, CustomStringConvertible {
    /// The `errno` of `pthread_create`.
    package var errorNumber: Int32

    package var description: String {
        "no thread could be made for it (pthread_create: \(String(cString: strerror(errorNumber))))"
    }
}

/// The threads of ``BlockingCall``: every call gets one at once, an idle one when there is one.
package final class BlockingThreads: Sendable {
    /// The set of this copy of the module.
    package static let shared = BlockingThreads()

    /// A set of its own (for tests).
    package init() {}

    /// How long a thread with nothing to do waits for a call before it ends.
    static let idleTime: Duration = .seconds(2)

    /// The name of a thread between calls, and during a call made without a name.
    static let idleName = "eua-blocking"

    /// One thread's mailbox: the call handed to it, its name, and the signal that one was.
    private final class Worker: Sendable {
        let job = Mutex<(name: String?, work: @Sendable () -> Void)?>(nil)
        let wake = DispatchSemaphore(value: 0)
    }

    private let idle = Mutex<[Worker]>([])

    /// Runs `work` on an idle thread, or on a new one when none is idle; throws when none can be made.
    package func run(name: String?, _ work: @escaping @Sendable () -> Void) throws(ThreadUnavailable) {
        if let worker = idle.withLock({ $0.popLast() }) {
            worker.job.withLock { $0 = (name, work) }
            worker.wake.signal()
            return
        }
        let worker = Worker()
        worker.job.withLock { $0 = (name, work) }
        let context = Unmanaged.passRetained(Box { [self] in serve(worker) }).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { context in
                Unmanaged<Box>.fromOpaque(context!).takeRetainedValue().body()
                return nil
            }, context)
        guard result == 0 else {
            Unmanaged<Box>.fromOpaque(context).release()
            throw ThreadUnavailable(errorNumber: result)
        }
        pthread_detach(thread)
    }

    /// A thread's life: run the call it was given, offer itself as idle, and end after ``idleTime`` without one.
    private func serve(_ worker: Worker) {
        var currentName: String?
        while true {
            if let job = worker.job.withLock({ job in
                defer { job = nil }
                return job
            }) {
                let name = job.name ?? Self.idleName
                if name != currentName {
                    ThreadName.set(name)
                    currentName = name
                }
                job.work()
                // An idle thread does not go on showing the name of the work it did.
                if currentName != Self.idleName {
                    ThreadName.set(Self.idleName)
                    currentName = Self.idleName
                }
            }
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

/// The calling thread's name, as `top -H` and a debugger show it.
private enum ThreadName {
    private typealias SetName = @convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32

    /// glibc's `pthread_setname_np`, which its Swift module does not declare (a GNU extension).
    private static let setName: SetName? = dlsym(nil, "pthread_setname_np").map { unsafeBitCast($0, to: SetName.self) }

    /// Names the calling thread `name`, cut to the 15 bytes the kernel keeps.
    static func set(_ name: String) {
        var bytes = Array(name.utf8.prefix(15)).map { CChar(bitPattern: $0) }
        bytes.append(0)
        _ = setName?(pthread_self(), bytes)
    }
}

extension DispatchTime {
    /// The moment `duration` from now, for Dispatch waits: a negative duration is now, a huge one as late as
    /// Dispatch can wait.
    package static func after(_ duration: Duration) -> DispatchTime {
        let (seconds, attoseconds) = max(.zero, duration).components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .distantFuture }
        return .now()
            + .nanoseconds(Int(clamping: whole.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue))
    }
}
