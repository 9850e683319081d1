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
}
