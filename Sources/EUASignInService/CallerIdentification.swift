// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif
import ExternalUserAgentSystem

/// Finds the ``AppIdentity`` of a bus peer from its process id, in xdg-desktop-portal's order: Flatpak (its
/// `.flatpak-info`, tied to the peer by `bwrapinfo.json`), then Snap (its cgroup, confirmed by
/// `snap routine portal-info`), then a host app (its systemd scope). Pure over its two roots and the `snap` command,
/// so that tests give it fixture folders and a fixture script.
///
/// The pid is the bus's (`GetConnectionCredentials`); a process that ends and whose pid is taken by another during
/// the reads (snapd's answer among them) would be misread, so the process's start time is read before and after, and a
/// change fails.
struct CallerIdentification: Sendable {
    /// `/proc`, or a fixture folder shaped like it (`<pid>/stat`, `<pid>/cgroup`, `<pid>/root/.flatpak-info`).
    var procRoot = "/proc"
    /// The host's `$XDG_RUNTIME_DIR` (Flatpak keeps `.flatpak/<instance>/bwrapinfo.json` there).
    var runtimeDirectory: String?
    /// snapd's `snap` command, asked `snap routine portal-info PID` about a process its cgroup puts in a snap; `nil`:
    /// `snap` on the service's `PATH`, as xdg-desktop-portal runs it. Tests give a fixture script.
    var snapCommand: String?
    /// How long `snap routine portal-info` may take.
    var snapTimeout = Duration.seconds(5)

    /// Why a caller could not be identified: a reason that completes "the caller could not be identified: …".
    struct Failure: Error, Equatable {
        var reason: String
    }

    /// The identity of process `pid`, the bus peer.
    func identify(pid: UInt32) throws(Failure) -> AppIdentity {
        guard pid > 1 else { throw Failure(reason: "the bus gave no process id for it") }
        let before = try startTime(pid)
        let identity = try read(pid)
        guard try startTime(pid) == before else {
            throw Failure(reason: "its process \(pid) ended while it was being read; call again")
        }
        return identity
    }

    private func read(_ pid: UInt32) throws(Failure) -> AppIdentity {
        if let flatpak = try flatpak(pid) { return flatpak }
        let lines = try cgroupLines(pid)
        if let name = Self.snapName(in: lines) { return try snap(pid, cgroupName: name) }
        return .host(appID: lines.flatMap(\.units).lazy.compactMap(SystemdScope.appID).last)
    }

    /// The snap instance name a process's cgroup gives, as xdg-desktop-portal reads it: a path component `snap.<name>`
    /// (the v1 freezer's `/snap.<name>`) or `snap.<name>.<app>…` (snapd's scopes and services,
    /// `snap.<name>.<app>-<uuid>.scope`, `snap.<name>.<app>.service`, `snap.<name>.hook.<hook>-<uuid>.scope`) on the
    /// freezer, name=systemd or unified hierarchy only.
    static func snapName(in lines: [CgroupLine]) -> String? {
        for line in lines {
            if line.controllers == "freezer", line.units.count == 1, line.units[0].hasPrefix("snap."),
                SnapPortalInfo.isInstanceName(line.units[0].dropFirst(5))
            {
                return String(line.units[0].dropFirst(5))
            }
            guard ["freezer", "name=systemd", ""].contains(line.controllers) else { continue }
            if let name = line.units.lazy.compactMap(SystemdScope.snapName).first { return name }
        }
        return nil
    }

    /// A snap's identity: its cgroup says which snap, snapd (`snap routine portal-info`) confirms it; they must agree.
    private func snap(_ pid: UInt32, cgroupName: String) throws(Failure) -> AppIdentity {
        guard let command = snapCommand ?? Self.onPath("snap") else {
            throw Failure(
                reason: "its cgroup puts it in the snap '\(cgroupName)', but there is no snapd ('snap' on the "
                    + "service's PATH) to confirm it")
        }
        let info = try SnapPortalInfo.ask(command, pid: pid, timeout: snapTimeout)
        guard info.instanceName == cgroupName else {
            throw Failure(
                reason: "its cgroup puts it in the snap '\(cgroupName)', but snapd says it is '\(info.instanceName)'")
        }
        return .snap(name: info.instanceName)
    }

    /// The first executable `name` in the folders of `$PATH`.
    static func onPath(_ name: String) -> String? {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").lazy.map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
    }

    /// A Flatpak identity when the process's root holds `.flatpak-info`; its instance's `bwrapinfo.json` must name
    /// this process as the sandbox's child (the peer of a Flatpak app is its xdg-dbus-proxy, started so).
    private func flatpak(_ pid: UInt32) throws(Failure) -> AppIdentity? {
        let path = "\(procRoot)/\(pid)/root/.flatpak-info"
        let bytes: [UInt8]?
        do throws(SmallFiles.Failure) {
            bytes = try SmallFiles.read(path, limit: 64 * 1024)
        } catch {
            throw Failure(reason: "\(path): \(error.reason)")
        }
        guard let bytes else { return nil }
        let info = KeyFile(String(decoding: bytes, as: UTF8.self))
        guard let id = info["Application", "name"], SystemdScope.isAppID(id), id.contains(".") else {
            throw Failure(reason: "its .flatpak-info has no valid [Application] name")
        }
        guard let instance = info["Instance", "instance-id"], !instance.isEmpty, instance.utf8.count <= 64,
            instance.utf8.allSatisfy(\.isASCIILetterOrDigit)
        else {
            throw Failure(reason: "its .flatpak-info has no valid [Instance] instance-id")
        }
        guard let runtimeDirectory else {
            throw Failure(reason: "the service has no XDG_RUNTIME_DIR, where Flatpak keeps bwrapinfo.json")
        }
        let infoPath = "\(runtimeDirectory)/.flatpak/\(instance)/bwrapinfo.json"
        let json: [UInt8]?
        do throws(SmallFiles.Failure) {
            json = try SmallFiles.read(infoPath, limit: 64 * 1024)
        } catch {
            throw Failure(reason: "\(infoPath): \(error.reason)")
        }
        guard let json else { throw Failure(reason: "its Flatpak instance \(instance) has no \(infoPath)") }
        guard let child = Self.childPID(in: json), child == pid else {
            throw Failure(reason: "\(infoPath) does not name its process \(pid) as the sandbox's child-pid")
        }
        return .flatpak(id: id, instance: instance)
    }

    /// One line of `/proc/PID/cgroup`, `ID:CONTROLLERS:PATH` (the unified hierarchy's is `0::PATH`).
    struct CgroupLine: Equatable {
        /// The controllers (`freezer`, `name=systemd`, …), empty on the unified hierarchy.
        var controllers: String
        /// The path's components, outermost first: the last is the process's unit.
        var units: [String]
    }

    /// The lines of the process's `/proc/PID/cgroup`.
    private func cgroupLines(_ pid: UInt32) throws(Failure) -> [CgroupLine] {
        let path = "\(procRoot)/\(pid)/cgroup"
        let bytes: [UInt8]?
        do throws(SmallFiles.Failure) {
            bytes = try SmallFiles.read(path, limit: 64 * 1024)
        } catch {
            throw Failure(reason: "\(path): \(error.reason)")
        }
        guard let bytes else { throw Failure(reason: "its process \(pid) is gone") }
        return Self.cgroupLines(String(decoding: bytes, as: UTF8.self))
    }

    /// The lines of a `/proc/PID/cgroup` text; a line without two colons is left out.
    static func cgroupLines(_ text: String) -> [CgroupLine] {
        text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { return nil }
            return CgroupLine(controllers: String(fields[1]), units: fields[2].split(separator: "/").map(String.init))
        }
    }

    /// Field 22 of `/proc/PID/stat`: when the process started, in clock ticks after boot.
    func startTime(_ pid: UInt32) throws(Failure) -> UInt64 {
        let path = "\(procRoot)/\(pid)/stat"
        let bytes: [UInt8]?
        do throws(SmallFiles.Failure) {
            bytes = try SmallFiles.read(path, limit: 4096)
        } catch {
            throw Failure(reason: "\(path): \(error.reason)")
        }
        guard let bytes else { throw Failure(reason: "its process \(pid) is gone") }
        // "PID (COMM) STATE …": COMM may hold spaces and parentheses, so the fields count from the last ')'.
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else {
            throw Failure(reason: "\(path) is not a stat line")
        }
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
        // After COMM: field 3 (state) is fields[0], so field 22 is fields[19].
        guard fields.count > 19, let start = UInt64(String(decoding: fields[19], as: UTF8.self)) else {
            throw Failure(reason: "\(path) has no start time")
        }
        return start
    }

    /// The `child-pid` number of a `bwrapinfo.json` (`{"child-pid": 1234}`, bwrap's `--info-fd`).
    static func childPID(in json: [UInt8]) -> UInt32? {
        let text = String(decoding: json, as: UTF8.self)
        guard let key = text.firstRange(of: "\"child-pid\"") else { return nil }
        var rest = text[key.upperBound...].drop { $0 == " " || $0 == "\t" || $0 == "\n" }
        guard rest.first == ":" else { return nil }
        rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" || $0 == "\n" }
        return UInt32(rest.prefix { $0.isNumber })
    }
}
