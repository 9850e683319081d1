// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif
import ExternalUserAgentSystem

/// A thread for a plugin's blocking work (waitpid, reading standard input), which must not sit on Swift's small
/// cooperative thread pool: the kit's face of the threads the host runs its plugin calls on (an idle thread is
/// reused, else a new one is made; each copy of the kit has its own).
public enum PluginThread {
    /// Runs `work` on a thread of its own — or, if no thread can be made, on this one when `orHere` (else not at
    /// all: for work that may wait without end, such as reaping a browser that keeps running).
    public static func detach(orHere: Bool = true, _ work: @escaping @Sendable () -> Void) {
        do {
            _ = try BlockingCall.start(work)
        } catch {
            if orHere { work() }
        }
    }

    /// Waits for the child process `pid` on a thread of its own, so that it never stays a zombie of the host, and
    /// hands its wait status to `onExit` there. If no thread can be made: waits on this one when `orHere`, else
    /// leaves it a zombie until the host exits (never a wait without end in the caller).
    public static func reap(
        _ pid: pid_t, orHere: Bool = false,
        onExit: @escaping @Sendable (_ status: Int32) -> Void = { _ in }
    ) {
        detach(orHere: orHere) {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            onExit(status)
        }
    }
}
