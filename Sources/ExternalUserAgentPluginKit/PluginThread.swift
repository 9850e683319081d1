#if canImport(Glibc)
import Glibc
#endif

/// A plain detached thread for a plugin's blocking work (waitpid, reading standard input), which must not
/// sit on Swift's small cooperative thread pool.
public enum PluginThread {
    private final class Box {
        let work: () -> Void
        init(_ work: @escaping () -> Void) { self.work = work }
    }

    /// Runs `work` on a new detached thread — or, if no thread can be made, on this one when `orHere` (else not at
    /// all: for work that may wait without end, such as reaping a browser that keeps running).
    public static func detach(orHere: Bool = true, _ work: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Box(work)).toOpaque()
        var thread = pthread_t()
        if pthread_create(&thread, nil, { context in
            Unmanaged<Box>.fromOpaque(context!).takeRetainedValue().work()
            return nil
        }, box) == 0 {
            pthread_detach(thread)
        } else {
            let work = Unmanaged<Box>.fromOpaque(box).takeRetainedValue().work
            if orHere { work() }
        }
    }

    /// Waits for the child process `pid` on a thread of its own, so that it never stays a zombie of the host, and
    /// hands its wait status to `onExit` there. If no thread can be made: waits on this one when `orHere`, else
    /// leaves it a zombie until the host exits (never a wait without end in the caller).
    public static func reap(_ pid: pid_t, orHere: Bool = false,
                            onExit: @escaping @Sendable (_ status: Int32) -> Void = { _ in }) {
        detach(orHere: orHere) {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            onExit(status)
        }
    }
}
