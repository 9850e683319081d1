// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import CGIO
import ExternalUserAgentSystem
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A browser found on this machine.
public struct InstalledBrowser: Sendable, Equatable {
    public var family: BrowserFamily
    /// The executable to start (as found on PATH, or named by a desktop entry).
    public var executable: String
    /// Its version, when it could be read (application.ini, or a cached `--version`).
    public var version: String?
    /// Where it was found: `PATH` or `desktop entry <id>`.
    public var foundIn: String
}

/// Finds the browsers of a family: on PATH, then in desktop entries (GIO's list of https handlers).
public enum BrowserDiscovery {
    public static func find(
        _ families: [BrowserFamily],
        environment: [String: String]? = nil
    ) -> [InstalledBrowser] {
        let environment = environment ?? ProcessEnvironment.current()
        let path = (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init)
        let desktopEntries = httpsHandlers()
        let cache = VersionCache(environment: environment)
        var found: [InstalledBrowser] = []
        for family in families {
            var executable: String?
            var foundIn = "PATH"
            for name in family.executables {
                if let hit = path.lazy.map({ $0 + "/" + name }).first(where: { access($0, X_OK) == 0 }) {
                    executable = hit
                    break
                }
            }
            if executable == nil,
                let entry = desktopEntries.first(where: { family.executables.contains(lastComponent($0.executable)) })
            {
                executable = entry.executable.hasPrefix("/") ? entry.executable : nil
                foundIn = "desktop entry \(entry.id)"
            }
            guard let executable, !isAliasOfAnother(executable, family: family) else { continue }
            found.append(
                InstalledBrowser(
                    family: family, executable: executable,
                    version: version(of: family, executable: executable, cache: cache), foundIn: foundIn))
        }
        cache.save()
        return found
    }

    /// Debian's firefox-esr installs a `/usr/bin/firefox` shim that runs `firefox.real` when present and
    /// firefox-esr otherwise: without `firefox.real` it is the same browser, listed once as firefox-esr.
    static func isAliasOfAnother(_ executable: String, family: BrowserFamily) -> Bool {
        guard family.id == "firefox", access(executable + ".real", X_OK) != 0,
            let bytes = try? SmallFiles.read(executable, limit: 4095), bytes.starts(with: Array("#!".utf8))
        else { return false }
        return String(decoding: bytes, as: UTF8.self).contains("exec firefox-esr")
    }

    /// The version without starting the browser where possible: Firefox's application.ini next to the
    /// real binary; otherwise `--version` of the real binary, cached by path, size and modification time.
    static func version(of family: BrowserFamily, executable: String, cache: VersionCache) -> String? {
        let real = realPath(executable) ?? executable
        let folder = String(real[..<(real.lastIndex(of: "/") ?? real.endIndex)])
        for ini in [folder + "/application.ini", family.applicationINI].compactMap({ $0 }) {
            if let text = (try? SmallFiles.read(ini, limit: 1 << 20)).map({ String(decoding: $0, as: UTF8.self) }),
                let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Version=") })
            {
                return String(line.dropFirst("Version=".count))
            }
        }
        let binary = family.binaryHint.flatMap { access($0, X_OK) == 0 ? $0 : nil } ?? real
        if let cached = cache.version(for: binary) { return cached }
        guard let output = try? ProcessSpawn.output([binary, "--version"], timeout: 3),
            let version = parseVersion(output)
        else { return nil }
        cache.store(version, for: binary)
        return version
    }

    /// The first dotted number in `text` (`Chromium 156.0.7700.12 built on Debian` → `156.0.7700.12`).
    public static func parseVersion(_ text: String) -> String? {
        for word in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let trimmed = String(word.filter { !",;()".contains($0) })
            let parts = trimmed.split(separator: ".", omittingEmptySubsequences: false)
            if parts.count >= 2,
                parts.allSatisfy({ part in !part.isEmpty && part.allSatisfy { $0.isASCII && $0.isNumber } })
            {
                return trimmed
            }
        }
        return nil
    }

    struct Handler {
        var id: String
        var executable: String
    }

    static func httpsHandlers() -> [Handler] {
        var handlers: [Handler] = []
        let list = g_app_info_get_all_for_type("x-scheme-handler/https")
        var node = list
        while let current = node {
            if let info = current.pointee.data {
                let pointer = OpaquePointer(info)
                if let id = g_app_info_get_id(pointer), let executable = g_app_info_get_executable(pointer) {
                    handlers.append(Handler(id: String(cString: id), executable: String(cString: executable)))
                }
            }
            node = current.pointee.next
        }
        g_list_free_full(list) { eua_object_unref($0) }
        return handlers
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

/// The last component of a path.
func lastComponent(_ path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
}
