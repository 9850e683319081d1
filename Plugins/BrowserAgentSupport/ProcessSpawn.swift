// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif

/// glibc's POSIX_SPAWN_SETSID (spawn.h, only under _GNU_SOURCE, so Swift does not see it): the child
/// starts a new session and process group.
private let posixSpawnSetSID: Int16 = 0x80

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+, also _GNU_SOURCE-only), found at run time:
/// the child closes every descriptor from 3 up, so a browser never inherits the host's sockets (a
/// listening loopback socket kept open by a browser would keep the one-shot port accepting).
private let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
        return nil
    }
    return unsafeBitCast(
        symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
}()

/// Starts programs without a shell: `posix_spawn` with explicit file actions.
public enum ProcessSpawn {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Starts `arguments` in a session of its own (`setsid`, so the whole process group can be ended
    /// later), stdin/stdout/stderr on /dev/null, with `environment` merged over ours. Returns the pid.
    public static func startDetached(
        _ arguments: [String], environment: [String: String] = [:],
        newSession: Bool = true
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        _ = addCloseFrom?(&actions, 3)
        return try spawn(arguments, environment: environment, actions: &actions, newSession: newSession)
    }

    /// Runs `arguments` to the end (at most `timeout` seconds) and returns its stdout; stderr is dropped.
    public static func output(_ arguments: [String], timeout: Double = 3) throws -> String {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw Failure(description: "pipe() failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        _ = addCloseFrom?(&actions, 3)
        let pid: pid_t
        do {
            pid = try spawn(arguments, environment: [:], actions: &actions, newSession: true)
        } catch {
            close(pipeEnds[0])
            close(pipeEnds[1])
            throw error
        }
        close(pipeEnds[1])
        defer { close(pipeEnds[0]) }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = monotonicSeconds() + timeout
        while monotonicSeconds() < deadline {
            var poller = pollfd(fd: pipeEnds[0], events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            let count = read(pipeEnds[0], &buffer, buffer.count)
            if count <= 0 { break }
            output += buffer[0..<count]
        }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == 0 {
            kill(-pid, SIGKILL)
            waitpid(pid, &status, 0)
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func spawn(
        _ arguments: [String], environment: [String: String],
        actions: inout posix_spawn_file_actions_t, newSession: Bool
    ) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        if newSession { posix_spawnattr_setflags(&attributes, posixSpawnSetSID) }
        var merged: [String: String] = [:]
        var index = 0
        while let entry = environ[index] {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                merged[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            index += 1
        }
        merged.merge(environment) { $1 }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, arguments[0], &actions, &attributes, &argv, &envp)
        guard result == 0 else {
            throw Failure(description: "could not start \(arguments[0]): \(String(cString: strerror(result)))")
        }
        return pid
    }

    static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
