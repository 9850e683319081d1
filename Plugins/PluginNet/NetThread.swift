#if canImport(Glibc)
import Glibc
#endif
import CPluginNet

/// A named, detached thread of a plugin's own for its blocking network work (a `poll()` loop, a
/// blocking request), which must not sit on Swift's small cooperative pool.
package enum NetThread {
    private final class Box {
        let name: String
        let work: () -> Void
        init(_ name: String, _ work: @escaping () -> Void) {
            self.name = name
            self.work = work
        }
    }

    /// Runs `work` on a new thread named `name` (at most 15 bytes are kept). Returns the `errno` of
    /// `pthread_create` when no thread could be made (then `work` is not run), else `nil`.
    package static func start(name: String, _ work: @escaping @Sendable () -> Void) -> SocketError? {
        let box = Unmanaged.passRetained(Box(name, work)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { context in
            let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
            plugin_net_name_thread(box.name)
            box.work()
            return nil
        }, box)
        guard result == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            return SocketError("pthread_create", result)
        }
        pthread_detach(thread)
        return nil
    }
}
