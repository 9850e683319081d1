// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A glibc function that its headers declare only under _GNU_SOURCE (so Swift does not see it), found at run time
/// as Plugins/BrowserAgentSupport/ProcessSpawn.swift does.
private func gnuFunction<Function>(_ name: String, as type: Function.Type) -> Function? {
    dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { unsafeBitCast($0, to: type) }
}

/// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34+): the child closes every descriptor from 3 up.
private let addCloseFrom = gnuFunction(
    "posix_spawn_file_actions_addclosefrom_np",
    as: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)

/// `pipe2`, for pipes made close-on-exec at once.
private let pipe2 = gnuFunction("pipe2", as: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32).self)

/// A program the tests start with `posix_spawn`, not Foundation's `Process`, whose `run()` can crash on Linux
/// until swift-corelibs-foundation#5472 (it over-reads `d_name` while listing /proc/self/fd).
///
/// The child gets explicit argv and envp, its own process group, no blocked signals and default signal actions
/// (a Dispatch thread's mask would otherwise be inherited), and no descriptor of ours from 3 up. Its stdout and
/// stderr pipes are read to the end by one thread of its own, so a full pipe never blocks it. Every wait has a
/// deadline. Ended (SIGTERM, then SIGKILL) and reaped when released.
///
/// A test process that crashes takes its children with it, so that `swift test` reports the crash instead of
/// waiting forever for the end of its pipe from the test process: each child is killed when the test process ends
/// (`setpriv --pdeathsig KILL`, started from one thread that lives as long as the process, since the kernel sends
/// that signal when the spawning thread ends), and no child — nor anything it starts — holds the test process's own
/// stdout or stderr: `.inherit` for those is a pipe whose contents are copied there.
public final class ChildProcess: @unchecked Sendable {
    /// Where one of the child's standard streams goes.
    public enum Stdio: Sendable {
        /// A pipe to this value: ``write(_:timeout:)`` for stdin, ``stdout`` and ``stderr`` for the others.
        case pipe
        /// `/dev/null`.
        case null
        /// The test process's own stream (for stdout and stderr: copied there through a pipe, so that the child never
        /// holds the stream itself).
        case inherit
        /// Appended to this file, created if missing.
        case file(String)
    }

    /// How the child ended.
    public enum Termination: Sendable, Equatable {
        case exited(Int32)
        case signalled(Int32)
        /// Something else collected its status (`waitpid` said ECHILD).
        case unknown

        /// The exit status; minus the signal's number when a signal ended it, so a killed program never passes
        /// for one that exited (130 is `eua`'s own answer to SIGINT); `Int32.min` when unknown.
        public var status: Int32 {
            switch self {
            case .exited(let code): code
            case .signalled(let number): -number
            case .unknown: Int32.min
            }
        }
    }

    public let pid: pid_t
    private let lock = NSLock()
    private var ended: Termination?
    private let inputLock = NSLock()
    private var input: Int32
    private let capture: Capture

    /// Starts `executable` with `arguments`, `environment` merged over this process's unless `replacingEnvironment`.
    public init(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:],
        replacingEnvironment: Bool = false,
        stdin: Stdio = .pipe, stdout: Stdio = .pipe, stderr: Stdio = .pipe
    ) throws {
        guard let addCloseFrom, let pipe2 else {
            throw TestSupportError(
                "posix_spawn_file_actions_addclosefrom_np or pipe2 is missing (glibc 2.34 or later "
                    + "needed): without them a child would inherit the test process's sockets")
        }
        var env = replacingEnvironment ? [:] : ProcessInfo.processInfo.environment
        env.merge(environment) { $1 }
        let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in envp { free(pointer) } }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var childEnds: [Int32] = []
        var parentEnds: [Int32] = []
        /// Sets up `target` in the child; returns this process's end of its pipe, or -1.
        func connect(_ stdio: Stdio, _ target: Int32) throws -> Int32 {
            let result: Int32
            var parentEnd: Int32 = -1
            switch stdio {
            case .inherit where target == 0:
                return -1
            case .null:
                result = posix_spawn_file_actions_addopen(
                    &actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let path):
                result = posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            case .pipe, .inherit:
                var ends: [Int32] = [-1, -1]
                guard pipe2(&ends, O_CLOEXEC) == 0 else {
                    throw TestSupportError("pipe2() failed: \(String(cString: strerror(errno)))")
                }
                let childEnd = target == 0 ? ends[0] : ends[1]
                parentEnd = target == 0 ? ends[1] : ends[0]
                childEnds.append(childEnd)
                parentEnds.append(parentEnd)
                result = posix_spawn_file_actions_adddup2(&actions, childEnd, target)
            }
            guard result == 0 else {
                throw TestSupportError(
                    "posix_spawn file action for fd \(target) failed: \(String(cString: strerror(result)))")
            }
            return parentEnd
        }

        guard FileManager.default.isExecutableFile(atPath: Self.setpriv) else {
            throw TestSupportError(
                "\(Self.setpriv) is missing: install util-linux (scripts/bootstrap); the tests start "
                    + "their programs through it so that none outlives a crashed test process")
        }
        // setpriv sets the parent-death signal, then executes the program in its place (same pid, argv[0] kept).
        let wrapped = [Self.setpriv, "--pdeathsig", "KILL", "--", executable.path] + arguments
        let argv: [UnsafeMutablePointer<CChar>?] = wrapped.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let pid: pid_t
        let ends: (input: Int32, out: Int32, err: Int32)
        do {
            ends = (try connect(stdin, 0), try connect(stdout, 1), try connect(stderr, 2))
            let closing = addCloseFrom(&actions, 3)
            guard closing == 0 else {
                throw TestSupportError(
                    "posix_spawn_file_actions_addclosefrom_np failed: \(String(cString: strerror(closing)))")
            }
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var noSignals = sigset_t()
            var allSignals = sigset_t()
            sigemptyset(&noSignals)
            sigfillset(&allSignals)
            posix_spawnattr_setsigmask(&attributes, &noSignals)
            posix_spawnattr_setsigdefault(&attributes, &allSignals)
            posix_spawnattr_setpgroup(&attributes, 0)
            posix_spawnattr_setflags(
                &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
            var spawned = pid_t()
            let result = withUnsafeMutablePointer(to: &spawned) { spawned in
                withUnsafePointer(to: &actions) { actions in
                    withUnsafePointer(to: &attributes) { attributes in
                        argv.withUnsafeBufferPointer { argv in
                            envp.withUnsafeBufferPointer { envp in
                                SpawningThread.shared.run {
                                    posix_spawn(
                                        spawned, Self.setpriv, actions, attributes, argv.baseAddress!, envp.baseAddress!
                                    )
                                }
                            }
                        }
                    }
                }
            }
            guard result == 0 else {
                throw TestSupportError("could not start \(executable.path): \(String(cString: strerror(result)))")
            }
            pid = spawned
        } catch {
            for fd in childEnds + parentEnds { close(fd) }
            throw error
        }
        for fd in childEnds { close(fd) }
        if ends.input >= 0 { _ = fcntl(ends.input, F_SETFL, fcntl(ends.input, F_GETFL) | O_NONBLOCK) }
        self.pid = pid
        input = ends.input
        capture = Capture(out: ends.out, err: ends.err, forwardOut: stdout.isInherit, forwardErr: stderr.isInherit)
    }

    /// util-linux's `setpriv`, which every child is started through.
    private static let setpriv = "/usr/bin/setpriv"

    /// What the child wrote on its stdout pipe so far.
    public var stdout: Data { capture.stdout }
    /// What the child wrote on its stderr pipe so far.
    public var stderr: Data { capture.stderr }

    /// How the child ended, or nil while it runs (its status is collected here, without blocking).
    public var termination: Termination? {
        lock.lock()
        defer { lock.unlock() }
        if ended == nil {
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                ended = status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signalled(status & 0x7f)
            } else if result < 0, errno == ECHILD {
                ended = .unknown
            }
        }
        return ended
    }

    public var isRunning: Bool { termination == nil }

    /// Waits up to `timeout` seconds for the end; nil if it still runs then.
    public func waitForExit(timeout: TimeInterval) -> Termination? {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            if let termination { return termination }
            if ContinuousClock.now >= deadline { return nil }
            usleep(5_000)
        }
    }

    /// Waits up to `timeout` seconds until stdout and stderr are closed by the child and everything it started;
    /// false if one is still open then.
    public func waitForOutput(timeout: TimeInterval) -> Bool {
        capture.waitUntilFinished(Date().addingTimeInterval(timeout))
    }

    /// Sends `number` to the child, unless it has ended and been collected (its pid may be another's by then).
    public func signal(_ number: Int32) {
        lock.lock()
        defer { lock.unlock() }
        if ended == nil { kill(pid, number) }
    }

    /// SIGTERM, then SIGKILL if it still runs after `grace` seconds; returns once it is collected (at most 10 s
    /// after SIGKILL).
    public func terminate(grace: TimeInterval = 1) {
        guard isRunning else { return }
        signal(SIGTERM)
        if waitForExit(timeout: grace) != nil { return }
        signal(SIGKILL)
        _ = waitForExit(timeout: 10)
    }

    /// Writes `data` to the stdin pipe, waiting at most `timeout` seconds for room in it; false when the child
    /// closed its stdin, the time ran out, or stdin is not a pipe.
    @discardableResult
    public func write(_ data: Data, timeout: TimeInterval = 30) -> Bool {
        inputLock.lock()
        defer { inputLock.unlock() }
        guard input >= 0 else { return false }
        // SIGPIPE held back on this thread: a child that closed its stdin gives EPIPE, not the test process's death.
        var pipeSignal = sigset_t()
        var previous = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        var broken = false
        defer {
            var now = timespec()
            if broken { _ = sigtimedwait(&pipeSignal, nil, &now) }
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
        let deadline = ContinuousClock.now + .seconds(timeout)
        let bytes = [UInt8](data)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(input, $0.baseAddress, $0.count) }
            if written > 0 {
                offset += written
            } else if written < 0, errno == EAGAIN {
                guard ContinuousClock.now < deadline else { return false }
                var waiter = pollfd(fd: input, events: Int16(POLLOUT), revents: 0)
                _ = poll(&waiter, 1, 50)
            } else if written < 0, errno == EINTR {
                continue
            } else {
                broken = errno == EPIPE
                return false
            }
        }
        return true
    }

    /// Closes the stdin pipe: the child reads end of file.
    public func closeInput() {
        inputLock.lock()
        defer { inputLock.unlock() }
        if input >= 0 { close(input) }
        input = -1
    }

    deinit {
        terminate()
        closeInput()
        capture.abandon()
    }
}

/// The child's stdout and stderr as read so far by one thread that polls both pipes until they close.
private final class Capture: @unchecked Sendable {
    private let condition = NSCondition()
    private var out = Data()
    private var err = Data()
    private var finished = false
    private var abandoned = false

    /// Whether what comes on the stdout or stderr pipe goes to this process's own stream instead of being kept.
    private let forwardOut: Bool
    private let forwardErr: Bool

    init(out: Int32, err: Int32, forwardOut: Bool, forwardErr: Bool) {
        self.forwardOut = forwardOut
        self.forwardErr = forwardErr
        guard out >= 0 || err >= 0 else {
            finished = true
            return
        }
        Thread { [self] in readToEnd([out, err].filter { $0 >= 0 }, errorPipe: err) }.start()
    }

    var stdout: Data {
        condition.lock()
        defer { condition.unlock() }
        return out
    }
    var stderr: Data {
        condition.lock()
        defer { condition.unlock() }
        return err
    }

    func waitUntilFinished(_ deadline: Date) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !finished, condition.wait(until: deadline) {}
        return finished
    }

    /// Nobody waits any more: the reader stops within 100 ms even if a pipe is still open.
    func abandon() {
        condition.lock()
        abandoned = true
        condition.unlock()
    }

    private func readToEnd(_ descriptors: [Int32], errorPipe: Int32) {
        var open = descriptors
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !open.isEmpty {
            condition.lock()
            let stop = abandoned
            condition.unlock()
            if stop { break }
            var waiters = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&waiters, nfds_t(waiters.count), 100) > 0 else { continue }
            for waiter in waiters where waiter.revents != 0 {
                let count = Glibc.read(waiter.fd, &buffer, buffer.count)
                if count > 0, waiter.fd == errorPipe ? forwardErr : forwardOut {
                    Self.writeAll(buffer[0..<count], to: waiter.fd == errorPipe ? 2 : 1)
                } else if count > 0 {
                    condition.lock()
                    if waiter.fd == errorPipe {
                        err.append(contentsOf: buffer[0..<count])
                    } else {
                        out.append(contentsOf: buffer[0..<count])
                    }
                    condition.unlock()
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    close(waiter.fd)
                    open.removeAll { $0 == waiter.fd }
                }
            }
        }
        for fd in open { close(fd) }
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Writes `bytes` to `fd` (this process's stdout or stderr), giving up on an error.
    private static func writeAll(_ bytes: ArraySlice<UInt8>, to fd: Int32) {
        var rest = bytes
        while !rest.isEmpty {
            let written = rest.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written > 0 {
                rest = rest.dropFirst(written)
            } else if written < 0, errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}

extension ChildProcess.Stdio {
    fileprivate var isInherit: Bool {
        if case .inherit = self { return true }
        return false
    }
}

/// The one thread every child is spawned from. The kernel sends a child its parent-death signal when the *thread*
/// that spawned it ends, and the threads tests run on (Dispatch's, ``BlockingCall``'s) end when idle; this one lives
/// as long as the process, so a child's signal comes when the test process ends, and only then.
private final class SpawningThread: @unchecked Sendable {
    static let shared = SpawningThread()

    private let condition = NSCondition()
    private var pending: (() -> Int32)?
    private var result: Int32?

    private init() {
        let thread = Thread { [self] in serve() }
        thread.name = "eua-test-spawn"
        thread.start()
    }

    /// Runs `call` (a `posix_spawn`) on the spawning thread, waiting until it returns: one at a time.
    func run(_ call: @escaping () -> Int32) -> Int32 {
        condition.lock()
        defer { condition.unlock() }
        while pending != nil || result != nil { condition.wait() }
        pending = call
        condition.broadcast()
        while result == nil { condition.wait() }
        defer {
            result = nil
            condition.broadcast()
        }
        return result!
    }

    private func serve() {
        condition.lock()
        while true {
            while pending == nil { condition.wait() }
            let call = pending!
            condition.unlock()
            let value = call()
            condition.lock()
            pending = nil
            result = value
            condition.broadcast()
        }
    }
}
