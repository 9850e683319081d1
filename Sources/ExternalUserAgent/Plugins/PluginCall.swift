import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Runs one call into a plugin on another thread, so that a plugin function that never returns cannot hang
/// the host: the caller waits up to a deadline and then goes on, leaving that thread blocked inside the plugin
/// (it cannot be stopped, and the plugin's memory must not be freed under it).
enum PluginCall {
    /// Starts `work` on a thread of its own — a finished call's thread when one is idle (``PluginCallThreads``),
    /// else a new detached one; `returned` is set when it returns.
    @discardableResult
    static func detach(signalling returned: Latch = Latch(), _ work: @escaping @Sendable () -> Void) -> Latch {
        PluginCallThreads.shared.run {
            work()
            returned.signal()
        }
        return returned
    }

    /// Runs `work` on the long-lived `PluginWorker` and blocks this one up to `timeout` from when it starts;
    /// `nil` when it did not return in time.
    static func run<Value: Sendable>(timeout: Duration, _ work: @escaping @Sendable () -> Value) -> Value? {
        PluginWorker.run(timeout: timeout, work)
    }

    /// Runs `work` on its own thread and blocks this one up to `timeout`; `nil` when it did not return in time.
    static func runOnOwnThread<Value: Sendable>(timeout: Duration, _ work: @escaping @Sendable () -> Value) -> Value? {
        let result = ResultBox<Value>()
        let done = DispatchSemaphore(value: 0)
        _ = detach {
            result.set(work())
            done.signal()
        }
        guard done.wait(timeout: .after(timeout)) == .success else { return nil }
        return result.get()
    }

    /// Runs `work` on its own thread and waits up to `timeout` without blocking a task thread.
    static func run<Value: Sendable>(timeout: Duration, _ work: @escaping @Sendable () -> Value) async -> Value? {
        let result = ResultBox<Value>()
        let returned = detach { result.set(work()) }
        guard await returned.wait(timeout: timeout) else { return nil }
        return result.get()
    }
}

/// A value written by one thread and read by another after a signal.
final class ResultBox<Value: Sendable>: Sendable {
    private let value = Mutex<Value?>(nil)

    func set(_ newValue: Value) { value.withLock { $0 = newValue } }

    func get() -> Value? { value.withLock { $0 } }
}
