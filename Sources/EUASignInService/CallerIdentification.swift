// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentSystem

/// Finds the ``AppIdentity`` of a bus peer from its process id, in xdg-desktop-portal's order: Flatpak (its
/// `.flatpak-info`, tied to the peer by `bwrapinfo.json`), then Snap (its cgroup), then a host app (its systemd
/// scope). Pure over its two roots, so that tests give it fixture folders.
///
/// The pid is the bus's (`GetConnectionCredentials`); a process that ends and whose pid is taken by another during
/// the reads would be misread, so the process's start time is read before and after, and a change fails.
struct CallerIdentification: Sendable {
    /// `/proc`, or a fixture folder shaped like it (`<pid>/stat`, `<pid>/cgroup`, `<pid>/root/.flatpak-info`).
    var procRoot = "/proc"
    /// The host's `$XDG_RUNTIME_DIR` (Flatpak keeps `.flatpak/<instance>/bwrapinfo.json` there).
    var runtimeDirectory: String?

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
        let units = try cgroupUnits(pid)
        if let snap = units.lazy.compactMap(SystemdScope.snapName).first { return .snap(name: snap) }
        return .host(appID: units.lazy.compactMap(SystemdScope.appID).last)
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
              instance.utf8.allSatisfy(\.isASCIILetterOrDigit) else {
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

    /// The systemd units of the process's cgroup paths (the last component of each path), outermost first.
    private func cgroupUnits(_ pid: UInt32) throws(Failure) -> [String] {
        let path = "\(procRoot)/\(pid)/cgroup"
        let bytes: [UInt8]?
        do throws(SmallFiles.Failure) {
            bytes = try SmallFiles.read(path, limit: 64 * 1024)
        } catch {
            throw Failure(reason: "\(path): \(error.reason)")
        }
        guard let bytes else { throw Failure(reason: "its process \(pid) is gone") }
        // Lines "ID:CONTROLLERS:PATH"; the unified hierarchy's is "0::PATH".
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").flatMap { line -> [String] in
            guard let path = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).last else { return [] }
            return path.split(separator: "/").map(String.init)
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
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { throw Failure(reason: "\(path) is not a stat line") }
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
