// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Foundation
import Testing
import EUATestSupport
@testable import EUASignInService

/// Caller identification over fixture folders shaped like `/proc` and `$XDG_RUNTIME_DIR`, and over this process's
/// own `/proc` entry.
@Suite("Caller identification")
struct CallerIdentificationTests {
    /// A `/proc/<pid>` fixture: a stat line, a cgroup file, and optionally a `.flatpak-info` in its root.
    static func process(
        _ proc: TemporaryFolder, pid: Int, cgroup: String, flatpakInfo: String? = nil,
        comm: String = "app (x) y"
    ) throws {
        let folder = try proc.folder("\(pid)")
        let stat = "\(pid) (\(comm)) S 1 \(pid) \(pid) 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 777123 1000 10"
        try stat.write(to: folder.appendingPathComponent("stat"), atomically: true, encoding: .utf8)
        try cgroup.write(to: folder.appendingPathComponent("cgroup"), atomically: true, encoding: .utf8)
        if let flatpakInfo {
            let root = folder.appendingPathComponent("root")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            try flatpakInfo.write(to: root.appendingPathComponent(".flatpak-info"), atomically: true, encoding: .utf8)
        }
    }

    static let flatpakInfo = """
        [Application]
        name=org.example.AppA
        runtime=runtime/org.freedesktop.Platform/x86_64/23.08

        [Instance]
        instance-id=1234567890
        app-path=/var/lib/flatpak/app/org.example.AppA/current/active/files
        """

    static func bwrapInfo(_ runtime: TemporaryFolder, instance: String = "1234567890", childPID: Int) throws {
        let folder = try runtime.folder(".flatpak/\(instance)")
        try "{\n    \"child-pid\": \(childPID),\n    \"cgroup-namespace\": 4026531835\n}\n"
            .write(to: folder.appendingPathComponent("bwrapinfo.json"), atomically: true, encoding: .utf8)
    }

    @Test("a Flatpak app whose bwrapinfo.json names the peer is its application id")
    func flatpak() throws {
        let (proc, runtime) = (try TemporaryFolder("eua-proc"), try TemporaryFolder("eua-runtime"))
        try Self.process(
            proc, pid: 4242, cgroup: "0::/user.slice/app-flatpak-org.example.AppA-1.scope\n",
            flatpakInfo: Self.flatpakInfo)
        try Self.bwrapInfo(runtime, childPID: 4242)
        let reader = CallerIdentification(procRoot: proc.path, runtimeDirectory: runtime.path)
        let identity = try reader.identify(pid: 4242)
        #expect(identity == .flatpak(id: "org.example.AppA", instance: "1234567890"))
        #expect(identity.appID == "org.example.AppA")
        #expect(identity.isSandboxed)
    }

    @Test("a .flatpak-info whose instance's bwrapinfo.json names another process is refused")
    func flatpakOfAnotherProcess() throws {
        let (proc, runtime) = (try TemporaryFolder("eua-proc"), try TemporaryFolder("eua-runtime"))
        try Self.process(proc, pid: 4242, cgroup: "0::/\n", flatpakInfo: Self.flatpakInfo)
        try Self.bwrapInfo(runtime, childPID: 999)
        let reader = CallerIdentification(procRoot: proc.path, runtimeDirectory: runtime.path)
        #expect(throws: CallerIdentification.Failure.self) { try reader.identify(pid: 4242) }
    }

    @Test("a .flatpak-info without an instance, or with a bad app id, is refused")
    func badFlatpakInfo() throws {
        let (proc, runtime) = (try TemporaryFolder("eua-proc"), try TemporaryFolder("eua-runtime"))
        try Self.process(proc, pid: 10, cgroup: "0::/\n", flatpakInfo: "[Application]\nname=org.example.AppA\n")
        try Self.process(
            proc, pid: 11, cgroup: "0::/\n", flatpakInfo: "[Application]\nname=../evil\n[Instance]\ninstance-id=1\n")
        let reader = CallerIdentification(procRoot: proc.path, runtimeDirectory: runtime.path)
        #expect(throws: CallerIdentification.Failure.self) { try reader.identify(pid: 10) }
        #expect(throws: CallerIdentification.Failure.self) { try reader.identify(pid: 11) }
    }

    /// A fake `snap` command in `folder`, answering `snap routine portal-info PID` as snapd does (snapd's own
    /// template: `[Snap Info]`, `InstanceName`, `AppName`, `DesktopFile`, `HasNetworkStatus`) for the pids of these
    /// tests: 77–79 the snap `firefox`, 80 the parallel instance `hello_work`, 81 another snap than its cgroup says,
    /// 82 not a snap (snapd's error, status 1), 83 hangs, 84 rewrites the fixture's start time of pid 84 meanwhile (its
    /// pid taken by another process), 85 prints no InstanceName. It logs each call's arguments to `calls`.
    static func snapCommand(in folder: TemporaryFolder, proc: TemporaryFolder) throws -> String {
        let path = folder.path + "/snap"
        try #"""
        #!/bin/sh
        echo "$*" >>"$(dirname "$0")/calls"
        [ "$1 $2" = "routine portal-info" ] || { echo "error: unknown command" >&2; exit 2; }
        info() { printf '[Snap Info]\nInstanceName=%s\nAppName=%s\nDesktopFile=%s_%s.desktop\nHasNetworkStatus=true\n' "$1" "$2" "$1" "$2"; }
        case "$3" in
          77|78|79) info firefox firefox ;;
          80) info hello_work universe ;;
          81) info other other ;;
          82) echo "error: cannot find snap for pid $3" >&2; exit 1 ;;
          83) sleep 30 ;;
          84) sed -i 's/ 777123 / 888999 /' "\#(proc.path)/84/stat"; info firefox firefox ;;
          85) printf '[Snap Info]\nHasNetworkStatus=false\n' ;;
        esac
        """#.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    @Test(
        "a Snap: its cgroup (unified, v1 freezer or name=systemd) names it, snap routine portal-info confirms it: snap.<instance>"
    )
    func snap() throws {
        let (proc, bin) = (try TemporaryFolder("eua-proc"), try TemporaryFolder("eua-snap"))
        // cgroup v2: snapd's transient scope for an app, snap.<name>.<app>-<uuid>.scope.
        try Self.process(
            proc, pid: 77,
            cgroup: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/"
                + "snap.firefox.firefox-2f6bb10b-4a71-4d50-b1b9-1d93a0d5b6b5.scope\n")
        // cgroup v1: the freezer hierarchy holds /snap.<name>; name=systemd and the unified one a terminal's scope.
        try Self.process(
            proc, pid: 78,
            cgroup: """
                12:pids:/user.slice/user-1000.slice/user@1000.service
                3:freezer:/snap.firefox
                2:cpu,cpuacct:/user.slice
                1:name=systemd:/user.slice/user-1000.slice/user@1000.service/apps.slice/apps-org.gnome.Terminal.slice/vte-spawn-228ae109.scope
                0::/user.slice/user-1000.slice/user@1000.service/apps.slice/apps-org.gnome.Terminal.slice/vte-spawn-228ae109.scope

                """)
        // cgroup v1, name=systemd: a snap's daemon, snap.<name>.<app>.service.
        try Self.process(proc, pid: 79, cgroup: "1:name=systemd:/system.slice/snap.firefox.daemon.service\n")
        // A parallel install: the instance name carries its key.
        try Self.process(
            proc, pid: 80,
            cgroup: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/"
                + "snap.hello_work.universe-9a7c.scope\n")
        let reader = CallerIdentification(procRoot: proc.path, snapCommand: try Self.snapCommand(in: bin, proc: proc))
        for pid: UInt32 in [77, 78, 79] {
            let identity = try reader.identify(pid: pid)
            #expect(identity == .snap(name: "firefox"), "pid \(pid)")
            #expect(identity.appID == "snap.firefox")
            #expect(identity.isSandboxed)
        }
        #expect(try reader.identify(pid: 80).appID == "snap.hello_work")
        let calls = try String(contentsOfFile: bin.path + "/calls", encoding: .utf8)
        #expect(calls.split(separator: "\n").first == "routine portal-info 77")
        // A snap.* path on another v1 hierarchy is not looked at, as xdg-desktop-portal does: a host app.
        try Self.process(proc, pid: 90, cgroup: "2:cpu:/snap.firefox\n0::/user.slice/session-2.scope\n")
        #expect(try reader.identify(pid: 90) == .host(appID: nil))
    }

    @Test(
        "a snap cgroup that snapd does not confirm, a hanging or missing snap command, and a pid reused meanwhile are refused"
    )
    func snapRefused() throws {
        let (proc, bin) = (try TemporaryFolder("eua-proc"), try TemporaryFolder("eua-snap"))
        let scope = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/snap.firefox.firefox-1a2b.scope\n"
        for pid in 81...85 { try Self.process(proc, pid: pid, cgroup: scope) }
        var reader = CallerIdentification(procRoot: proc.path, snapCommand: try Self.snapCommand(in: bin, proc: proc))
        reader.snapTimeout = .seconds(1)
        func reason(_ pid: UInt32, _ reader: CallerIdentification) -> String {
            do {
                let identity = try reader.identify(pid: pid)
                return "identified as \(identity.appID)"
            } catch {
                return error.reason
            }
        }
        // A host process can put itself in a scope named snap.*: snapd's answer decides.
        #expect(reason(81, reader).contains("snapd says it is 'other'"))
        #expect(reason(82, reader).contains("failed"))
        let started = ContinuousClock.now
        #expect(reason(83, reader).contains("did not answer within"))
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(reason(84, reader).contains("ended while it was being read"))
        #expect(reason(85, reader).contains("no valid [Snap Info] InstanceName"))
        reader.snapCommand = bin.path + "/missing"
        #expect(reason(81, reader).contains("could not be started"))
    }

    @Test("a host app is named by its systemd scope, or is host")
    func host() throws {
        let proc = try TemporaryFolder("eua-proc")
        try Self.process(
            proc, pid: 50,
            cgroup:
                "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.gnome.Terminal-4711.scope\n")
        try Self.process(
            proc, pid: 51,
            cgroup:
                "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.example.Escaped\\x2dName@123.service\n"
        )
        try Self.process(proc, pid: 52, cgroup: "0::/user.slice/user-1000.slice/session-2.scope\n")
        let reader = CallerIdentification(procRoot: proc.path)
        #expect(try reader.identify(pid: 50).appID == "host:org.gnome.Terminal")
        #expect(try reader.identify(pid: 51).appID == "host:org.example.Escaped-Name")
        #expect(try reader.identify(pid: 52).appID == "host")
    }

    @Test("the start time is read after a command name with spaces and parentheses")
    func startTime() throws {
        let proc = try TemporaryFolder("eua-proc")
        try Self.process(proc, pid: 60, cgroup: "0::/\n", comm: "a) (b c")
        #expect(try CallerIdentification(procRoot: proc.path).startTime(60) == 777123)
    }

    @Test("a process that is gone, and pid 0, are refused")
    func gone() throws {
        let proc = try TemporaryFolder("eua-proc")
        #expect(throws: CallerIdentification.Failure.self) {
            try CallerIdentification(procRoot: proc.path).identify(pid: 4000)
        }
        #expect(throws: CallerIdentification.Failure.self) { try CallerIdentification().identify(pid: 0) }
    }

    @Test("this test process, unsandboxed, is a host app")
    func thisProcess() throws {
        let identity = try CallerIdentification().identify(pid: UInt32(getpid()))
        #expect(!identity.isSandboxed)
        #expect(identity.appID.hasPrefix("host"))
    }

    @Test("request paths follow xdg-desktop-portal's rule")
    func requestPath() {
        #expect(RequestRegistry.path(sender: ":1.42", token: "t1") == "/org/externaluseragent/SignIn/request/1_42/t1")
    }

    @Test("URL arguments: https, loopback http, nothing else")
    func urls() throws {
        try CallArguments.checkURL("https://id.example.com", "x")
        try CallArguments.checkURL("http://127.0.0.1:8080/realm", "x")
        for bad in [
            "http://id.example.com", "https://user@id.example.com", "https://id.example.com/#f", "ftp://x",
            "https://", "https://id.example.com/\u{1}", "https://" + String(repeating: "a", count: 3000),
        ] {
            #expect(throws: ServiceError.self) { try CallArguments.checkURL(bad, "x") }
        }
    }
}
