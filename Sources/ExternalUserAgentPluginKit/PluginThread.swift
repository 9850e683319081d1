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

    /// Runs `work` on a new detached thread (or on this one if no thread can be made).
    public static func detach(_ work: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Box(work)).toOpaque()
        var thread = pthread_t()
        if pthread_create(&thread, nil, { context in
            Unmanaged<Box>.fromOpaque(context!).takeRetainedValue().work()
            return nil
        }, box) == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<Box>.fromOpaque(box).takeRetainedValue().work()
        }
    }
}
