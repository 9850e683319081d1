// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif

/// What snapd says about a process, as xdg-desktop-portal asks it: `snap routine portal-info PID` prints a key file
///
/// ```
/// [Snap Info]
/// InstanceName=hello
/// AppName=universe
/// DesktopFile=hello_universe.desktop
/// HasNetworkStatus=true
/// ```
///
/// (`AppName`, `DesktopFile` and `CommonID` only when snapd knows them). snapd answers from the process's AppArmor
/// label where it has one, so a host process that put itself in a `snap.*` scope is not taken for the snap.
struct SnapPortalInfo: Equatable, Sendable {
    /// The snap's instance name (`name`, or `name_key` for a parallel install): the app id is `snap.<instance>`.
    var instanceName: String
    /// The snap's app the process runs, when snapd names it.
    var appName: String?

    /// The key file's `[Snap Info]`, or `nil` when it has no valid `InstanceName`.
    init?(keyFile text: String) {
        let info = KeyFile(text)
        guard let name = info["Snap Info", "InstanceName"], Self.isInstanceName(name) else { return nil }
        instanceName = name
        appName = info["Snap Info", "AppName"]
    }

    /// A snap instance name: a snap name (lower-case letters, digits and dashes, at most 40), optionally `_` and an
    /// instance key of 1–10 lower-case letters and digits.
    static func isInstanceName(_ text: some StringProtocol) -> Bool {
        let parts = text.split(separator: "_", maxSplits: 1, omittingEmptySubsequences: false)
        guard let name = parts.first, SystemdScope.isSnapName(Substring(name)) else { return false }
        guard parts.count == 2 else { return true }
        let key = parts[1]
        return !key.isEmpty && key.utf8.count <= 10
            && key.utf8.allSatisfy { ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) }
    }

    /// Runs `snap routine portal-info PID` (`snap` at `executable`) and reads its answer: at most 64 KiB of output,
    /// within `timeout` (then the command is killed).
    static func ask(_ executable: String, pid: UInt32, timeout: Duration) throws(CallerIdentification.Failure) -> SnapPortalInfo {
        let output = try run([executable, "routine", "portal-info", String(pid)], timeout: timeout)
        guard let info = SnapPortalInfo(keyFile: String(decoding: output, as: UTF8.self)) else {
            throw CallerIdentification.Failure(reason: "'snap routine portal-info \(pid)' gave no valid [Snap Info] "
                + "InstanceName")
        }
        return info
    }

    /// The standard output of `arguments` (stdin and stderr `/dev/null`), or a failure when it cannot be started,
    /// runs past `timeout`, writes more than 64 KiB, or exits other than 0.
    private static func run(_ arguments: [String], timeout: Duration) throws(CallerIdentification.Failure) -> [UInt8] {
        let command = arguments.joined(separator: " ")
        var pipe: [Int32] = [-1, -1]
        // A socket pair made close-on-exec at once, so that no other child of the service inherits an end (and
        // holds the output open); Glibc's pipe2 is not imported.
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pipe) == 0 else {
            throw CallerIdentification.Failure(reason: "no socket pair for '\(command)': \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var child: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let spawned = posix_spawn(&child, arguments[0], &actions, nil, argv, environ)
        close(pipe[1])
        guard spawned == 0 else {
            close(pipe[0])
            throw CallerIdentification.Failure(reason: "'\(command)' could not be started: \(String(cString: strerror(spawned)))")
        }
        defer { close(pipe[0]) }
        let deadline = ContinuousClock.now + timeout
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var failure: String?
        reading: while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { failure = "did not answer within \(timeout)"; break }
            var poller = pollfd(fd: pipe[0], events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            let ready = poll(&poller, 1, milliseconds)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(pipe[0], $0.baseAddress, $0.count) }
            switch count {
            case 0: break reading
            case ..<0 where errno == EINTR: continue
            case ..<0: failure = "its output could not be read: \(String(cString: strerror(errno)))"; break reading
            default:
                output += buffer[..<count]
                if output.count > 64 * 1024 { failure = "wrote more than 64 KiB"; break reading }
            }
        }
        // The output ended (or failed): the command exits now, or is killed at the deadline.
        var status: Int32 = 0
        while true {
            let done = waitpid(child, &status, WNOHANG)
            if done == child || (done < 0 && errno != EINTR) { break }
            if failure != nil || ContinuousClock.now >= deadline {
                kill(child, SIGKILL)
                _ = waitpid(child, &status, 0)
                failure = failure ?? "did not exit within \(timeout)"
                break
            }
            usleep(5000)
        }
        if let failure { throw CallerIdentification.Failure(reason: "'\(command)' \(failure)") }
        // WIFEXITED and WEXITSTATUS, which Swift does not import.
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {
            throw CallerIdentification.Failure(reason: "'\(command)' failed (wait status \(status)): snapd does not "
                + "know the process as a snap's")
        }
        return output
    }
}
