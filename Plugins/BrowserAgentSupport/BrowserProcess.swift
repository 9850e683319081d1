// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentPluginKit
import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One browser process the agent started: its own session and process group, reaped by a watcher thread.
/// For an owned instance, `terminate()` ends the whole group (SIGTERM, then SIGKILL) and removes the
/// temporary profile; for a hand-off to a running browser it only reaps the launcher.
public final class BrowserProcess: Sendable {
    public let pid: pid_t
    public let ephemeralRoot: String?
    private let state = Mutex(State())

    private struct State {
        var exited = false
        var exitStatus: Int32 = 0
        var terminating = false
    }

    /// Starts `plan`; `onExit(status, terminating)` runs on the watcher thread when the process ends.
    public init(plan: LaunchPlan, onExit: @escaping @Sendable (Int32, Bool) -> Void) throws {
        if let root = plan.ephemeralRoot {
            for folder in [root, root + "/profile", root + "/home", root + "/tmp"] {
                guard mkdir(folder, 0o700) == 0 || errno == EEXIST else {
                    throw ProcessSpawn.Failure(
                        description:
                            "could not create the temporary profile folder \(folder): \(String(cString: strerror(errno)))"
                    )
                }
            }
        }
        ephemeralRoot = plan.ephemeralRoot
        do {
            pid = try ProcessSpawn.startDetached(plan.arguments, environment: plan.environment)
        } catch {
            if let root = plan.ephemeralRoot { Self.removeTree(root) }
            throw error
        }
        let pid = self.pid
        PluginThread.reap(pid, orHere: true) { [self] status in
            let terminating = self.state.withLock { state -> Bool in
                state.exited = true
                state.exitStatus = status
                return state.terminating
            }
            onExit(status, terminating)
        }
    }

    public var hasExited: Bool { state.withLock { $0.exited } }

    /// Ends the process group: SIGTERM to the leader, up to `grace` for it to exit, then SIGKILL to the
    /// group; waits until no process of the group is left (bounded), then removes the temporary profile.
    public func terminate(grace: Double = 3) {
        state.withLock { $0.terminating = true }
        kill(pid, SIGTERM)
        let deadline = ProcessSpawn.monotonicSeconds() + grace
        while !hasExited, ProcessSpawn.monotonicSeconds() < deadline { usleep(20_000) }
        kill(-pid, SIGKILL)
        let groupDeadline = ProcessSpawn.monotonicSeconds() + 2
        while Self.groupHasLiveMembers(pid), ProcessSpawn.monotonicSeconds() < groupDeadline {
            kill(-pid, SIGKILL)
            usleep(20_000)
        }
        while !hasExited, ProcessSpawn.monotonicSeconds() < groupDeadline + 1 { usleep(10_000) }
        if let ephemeralRoot {
            // Helpers that left the group (Chromium's crash handler starts its own session) still name
            // the throw-away profile on their command line: end them too, so nothing of the run is left.
            let strayDeadline = ProcessSpawn.monotonicSeconds() + 2
            var strays = Self.processes(mentioning: ephemeralRoot)
            while !strays.isEmpty, ProcessSpawn.monotonicSeconds() < strayDeadline {
                for stray in strays { kill(stray, SIGKILL) }
                usleep(20_000)
                strays = Self.processes(mentioning: ephemeralRoot)
            }
            Self.removeTree(ephemeralRoot)
        }
    }

    /// Live processes whose command line contains `text` (zombies have none, so they are not listed).
    static func processes(mentioning text: String) -> [pid_t] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        var found: [pid_t] = []
        for entry in entries where entry.first?.isNumber == true {
            guard let pid = pid_t(entry), pid != getpid(),
                let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
            else { continue }
            if String(decoding: data, as: UTF8.self).contains(text) { found.append(pid) }
        }
        return found
    }

    /// Marks the process as ended by us (a hand-off launcher exiting is not the user closing anything).
    public func forget() {
        state.withLock { $0.terminating = true }
    }

    /// Whether any process of group `group` is still running. Killed members can linger as zombies
    /// until whoever inherited them reaps them (in a container, PID 1 may be slow to); they are dead.
    static func groupHasLiveMembers(_ group: pid_t) -> Bool {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else {
            return kill(-group, 0) == 0
        }
        for entry in entries where entry.first?.isNumber == true {
            guard let data = FileManager.default.contents(atPath: "/proc/\(entry)/stat") else { continue }
            let text = String(decoding: data, as: UTF8.self)
            guard let close = text.lastIndex(of: ")") else { continue }
            let fields = text[text.index(after: close)...].split(separator: " ")
            // After the command: state, ppid, pgrp.
            if fields.count > 2, Int32(fields[2]) == group, fields[0] != "Z", fields[0] != "X" { return true }
        }
        return false
    }

    static func removeTree(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A fresh, private temporary folder for an ephemeral instance.
    public static func makeEphemeralRoot(environment: [String: String]) -> String {
        let base = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/eua-browser-XXXXXX").utf8CString)
        return template.withUnsafeMutableBufferPointer { buffer in
            guard let made = mkdtemp(buffer.baseAddress!) else {
                return base + "/eua-browser-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            }
            return String(cString: made)
        }
    }
}
