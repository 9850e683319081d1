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
            && key.utf8.allSatisfy {
                ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z"))
                    || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
            }
    }

    /// Runs `snap routine portal-info PID` (`snap` at `executable`) and reads its answer: at most 64 KiB of output,
    /// within `timeout` (then the command is killed).
    static func ask(_ executable: String, pid: UInt32, timeout: Duration) throws(CallerIdentification.Failure)
        -> SnapPortalInfo
    {
        let output = try run([executable, "routine", "portal-info", String(pid)], timeout: timeout)
        guard let info = SnapPortalInfo(keyFile: String(decoding: output, as: UTF8.self)) else {
            throw CallerIdentification.Failure(
                reason: "'snap routine portal-info \(pid)' gave no valid [Snap Info] "
                    + "InstanceName")
        }
        return info
    }

    /// The standard output of `arguments` (stdin and stderr `/dev/null`), or a failure when it cannot be started,
    /// runs past `timeout`, writes more than 64 KiB, or exits other than 0.
    private static func run(_ arguments: [String], timeout: Duration) throws(CallerIdentification.Failure) -> [UInt8] {
        let command = arguments.joined(separator: " ")
        let pipe: (Int32, Int32)
        switch ChildProcess.socketPair() {
        case .success(let ends): pipe = ends
        case .failure(let failure):
            throw CallerIdentification.Failure(reason: "no socket pair for '\(command)': \(failure)")
        }
        let spawned = ChildProcess.spawn(arguments, input: .null, output: .descriptor(pipe.1), errors: .null)
        close(pipe.1)
        let child: ChildProcess
        switch spawned {
        case .success(let started): child = started
        case .failure(let failure):
            close(pipe.0)
            throw CallerIdentification.Failure(reason: "'\(command)' could not be started: \(failure)")
        }
        defer { close(pipe.0) }
        let deadline = ContinuousClock.now + timeout
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var failure: String?
        reading: while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else {
                failure = "did not answer within \(timeout)"
                break
            }
            var poller = pollfd(fd: pipe.0, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(
                clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            let ready = poll(&poller, 1, milliseconds)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(pipe.0, $0.baseAddress, $0.count) }
            switch count {
            case 0: break reading
            case ..<0 where errno == EINTR: continue
            case ..<0:
                failure = "its output could not be read: \(String(cString: strerror(errno)))"
                break reading
            default:
                output += buffer[..<count]
                if output.count > 64 * 1024 {
                    failure = "wrote more than 64 KiB"
                    break reading
                }
            }
        }
        // The output ended (or failed): the command exits now, or is killed at the deadline.
        let (status, killed) = child.reap(until: failure == nil ? deadline : .now)
        if killed { failure = failure ?? "did not exit within \(timeout)" }
        if let failure { throw CallerIdentification.Failure(reason: "'\(command)' \(failure)") }
        guard ChildProcess.exitCode(of: status) == 0 else {
            throw CallerIdentification.Failure(
                reason: "'\(command)' failed (wait status \(status)): snapd does not "
                    + "know the process as a snap's")
        }
        return output
    }
}
