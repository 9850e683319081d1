// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A child process of the service (`snap routine portal-info`, an agent step): started with `posix_spawn`, its
/// standard descriptors given explicitly, reaped once, and killed only while it is known not to be reaped (so a
/// `SIGKILL` never reaches a reused pid).
final class ChildProcess: Sendable {
    /// The child's pid.
    let pid: pid_t
    /// The wait status once reaped.
    private let status = Mutex<Int32?>(nil)

    private init(pid: pid_t) { self.pid = pid }

    /// What a child's standard descriptor 0, 1 or 2 is.
    enum Descriptor {
        /// `/dev/null`.
        case null
        /// This descriptor of the service (close-on-exec there; the child's copy is not).
        case descriptor(Int32)
    }

    /// Starts `arguments` (the first is the executable's path) with `input`, `output` and `errors` as its descriptors
    /// 0, 1 and 2 and the service's environment with `environment` set over it. Every other descriptor of the service
    /// that is close-on-exec stays out of the child. Returns the `errno` when it could not be started.
    static func spawn(
        _ arguments: [String], input: Descriptor, output: Descriptor, errors: Descriptor,
        environment overrides: [String: String] = [:]
    ) -> Result<ChildProcess, SpawnFailure> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, descriptor) in [(Int32(0), input), (1, output), (2, errors)] {
            switch descriptor {
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .descriptor(let source): posix_spawn_file_actions_adddup2(&actions, source, target)
            }
        }
        var environment: [String] = []
        var index = 0
        while let entry = environ[index] {
            let text = String(cString: entry)
            let name = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text
            if overrides[name] == nil { environment.append(text) }
            index += 1
        }
        environment += overrides.map { "\($0.key)=\($0.value)" }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { for text in argv + envp { free(text) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, arguments[0], &actions, nil, argv, envp)
        guard result == 0 else { return .failure(SpawnFailure(errorNumber: result)) }
        return .success(ChildProcess(pid: pid))
    }

    /// A socket pair whose both ends are close-on-exec from the start, so no other child of the service inherits an
    /// end (and holds it open); a stream either way. (Glibc's `pipe2` is not imported.)
    static func socketPair() -> Result<(Int32, Int32), SpawnFailure> {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            return .failure(SpawnFailure(errorNumber: errno))
        }
        return .success((ends[0], ends[1]))
    }

    /// The wait status once the child has been reaped.
    var exitStatus: Int32? { status.withLock { $0 } }

    /// Reaps the child when it has ended; returns its wait status then.
    func reapIfEnded() -> Int32? {
        status.withLock { status in
            if let status { return status }
            var value: Int32 = 0
            let done = waitpid(pid, &value, WNOHANG)
            if done == pid { status = value } else if done < 0, errno == ECHILD { status = 0x7F00 }
            return status
        }
    }

    /// Kills the child with `SIGKILL` unless it has been reaped.
    func kill() {
        status.withLock { status in
            if status == nil { _ = Glibc.kill(pid, SIGKILL) }
        }
    }

    /// Waits for the child to end until `deadline`, then kills it and waits for that; returns the wait status and
    /// whether it was killed here.
    func reap(until deadline: ContinuousClock.Instant) -> (status: Int32, killed: Bool) {
        while ContinuousClock.now < deadline {
            if let status = reapIfEnded() { return (status, false) }
            usleep(2000)
        }
        kill()
        while true {
            if let status = reapIfEnded() { return (status, true) }
            usleep(1000)
        }
    }

    /// The signal that ended the child, when a signal did (`WIFSIGNALED`/`WTERMSIG`, which Swift does not import).
    static func signal(of status: Int32) -> Int32? {
        let signal = status & 0x7F
        return signal != 0 && signal != 0x7F ? signal : nil
    }

    /// The exit status of a child that exited (`WIFEXITED`/`WEXITSTATUS`).
    static func exitCode(of status: Int32) -> Int32? {
        status & 0x7F == 0 ? (status >> 8) & 0xFF : nil
    }

    /// A signal's name (`SIGSEGV`), or its number.
    static func name(ofSignal signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGSEGV: "SIGSEGV", SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGILL: "SIGILL",
            SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGTERM: "SIGTERM", SIGTRAP: "SIGTRAP",
            SIGPIPE: "SIGPIPE", SIGSYS: "SIGSYS", SIGXCPU: "SIGXCPU", SIGINT: "SIGINT",
        ]
        return names[signal] ?? "signal \(signal)"
    }
}

/// A child process or its descriptors could not be made.
struct SpawnFailure: Error, Sendable, CustomStringConvertible {
    /// The `errno`.
    var errorNumber: Int32

    var description: String { String(cString: strerror(errorNumber)) }
}
