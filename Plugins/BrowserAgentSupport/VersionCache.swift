// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentPluginKit
import ExternalUserAgentSystem
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Browser versions read with `--version`, kept in `$XDG_CACHE_HOME/eua/browser-versions.json` so that
/// loading the plugins does not start a browser each time. An entry is used only while the binary's
/// size and modification time are unchanged.
///
/// The file is `{"/usr/bin/firefox": {"stamp": "SIZE:MTIME-NS", "version": "…"}}`, read and written with the ABI's
/// JSON (`JSONValue`), not `Codable`, which each browser plugin paid again in its own copy; the stamp is a string
/// because nanoseconds since 1970 do not fit a JSON number exactly. Entries of any other shape are skipped.
final class VersionCache: @unchecked Sendable {
    private struct Entry {
        /// `size:modified-nanoseconds` of the binary when its version was read.
        var stamp: String
        var version: String
    }

    /// The longest cache read, 1 MiB (a line per browser binary): a larger file is ignored and written anew.
    static let maximumSize = 1 << 20

    private let file: String?
    private var entries: [String: Entry]
    private var changed = false

    init(environment: [String: String]) {
        let base =
            environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? environment["HOME"].map { $0 + "/.cache" }
        file = base.map { $0 + "/eua/browser-versions.json" }
        let text = file.flatMap { try? SmallFiles.read($0, limit: Self.maximumSize) }.map {
            String(decoding: $0, as: UTF8.self)
        }
        var entries: [String: Entry] = [:]
        if let text, case .object(let members)? = try? JSONValue(parsing: text) {
            for (binary, value) in members {
                guard case .object(let fields) = value, let stamp = fields["stamp"]?.stringValue,
                    let version = fields["version"]?.stringValue
                else { continue }
                entries[binary] = Entry(stamp: stamp, version: version)
            }
        }
        self.entries = entries
    }

    func version(for binary: String) -> String? {
        guard let entry = entries[binary], let stamp = Self.stamp(binary), stamp == entry.stamp else { return nil }
        return entry.version
    }

    func store(_ version: String, for binary: String) {
        guard let stamp = Self.stamp(binary) else { return }
        entries[binary] = Entry(stamp: stamp, version: version)
        changed = true
    }

    /// Writes the cache (temp file + rename) if anything was added; failures only cost a later `--version`.
    func save() {
        guard changed, let file else { return }
        let text = JSONValue.object(
            entries.mapValues { entry in
                .object(["stamp": .string(entry.stamp), "version": .string(entry.version)])
            }
        ).jsonText
        guard SmallFiles.makeFolders(SmallFiles.folder(of: file), mode: 0o755) == nil else { return }
        _ = SmallFiles.replace(file, with: text, mode: 0o644)
    }

    /// Size and modification time from stat(2). (Not FileManager's attributes: without full Foundation in
    /// the process their values do not cast to Int and Date, and every load ran `--version` again.)
    private static func stamp(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return "\(info.st_size):\(Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))"
    }
}
