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
    static func process(_ proc: TemporaryFolder, pid: Int, cgroup: String, flatpakInfo: String? = nil,
                        comm: String = "app (x) y") throws {
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
        try Self.process(proc, pid: 4242, cgroup: "0::/user.slice/app-flatpak-org.example.AppA-1.scope\n",
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
        try Self.process(proc, pid: 11, cgroup: "0::/\n", flatpakInfo: "[Application]\nname=../evil\n[Instance]\ninstance-id=1\n")
        let reader = CallerIdentification(procRoot: proc.path, runtimeDirectory: runtime.path)
        #expect(throws: CallerIdentification.Failure.self) { try reader.identify(pid: 10) }
        #expect(throws: CallerIdentification.Failure.self) { try reader.identify(pid: 11) }
    }

    @Test("a Snap is snap.<name> from its cgroup")
    func snap() throws {
        let proc = try TemporaryFolder("eua-proc")
        try Self.process(proc, pid: 77, cgroup: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/snap.firefox.firefox-7d1c.scope\n")
        let identity = try CallerIdentification(procRoot: proc.path).identify(pid: 77)
        #expect(identity == .snap(name: "firefox"))
        #expect(identity.appID == "snap.firefox")
    }

    @Test("a host app is named by its systemd scope, or is host")
    func host() throws {
        let proc = try TemporaryFolder("eua-proc")
        try Self.process(proc, pid: 50, cgroup: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.gnome.Terminal-4711.scope\n")
        try Self.process(proc, pid: 51, cgroup: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.example.Escaped\\x2dName@123.service\n")
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
        #expect(throws: CallerIdentification.Failure.self) { try CallerIdentification(procRoot: proc.path).identify(pid: 4000) }
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
        for bad in ["http://id.example.com", "https://user@id.example.com", "https://id.example.com/#f", "ftp://x",
                    "https://", "https://id.example.com/\u{1}", "https://" + String(repeating: "a", count: 3000)] {
            #expect(throws: ServiceError.self) { try CallArguments.checkURL(bad, "x") }
        }
    }
}
