import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Browser versions read with `--version`, kept in `$XDG_CACHE_HOME/eua/browser-versions.json` so that
/// loading the plugins does not start a browser each time. An entry is used only while the binary's
/// size and modification time are unchanged.
final class VersionCache: @unchecked Sendable {
    private struct Entry: Codable {
        var size: Int64
        /// Modification time in nanoseconds since 1970.
        var modifiedNanoseconds: Int64
        var version: String
    }

    private let file: String?
    private var entries: [String: Entry]
    private var changed = false

    init(environment: [String: String]) {
        let base = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? environment["HOME"].map { $0 + "/.cache" }
        file = base.map { $0 + "/eua/browser-versions.json" }
        entries = file.flatMap { FileManager.default.contents(atPath: $0) }
            .flatMap { try? JSONDecoder().decode([String: Entry].self, from: $0) } ?? [:]
    }

    func version(for binary: String) -> String? {
        guard let entry = entries[binary], let stamp = Self.stamp(binary),
              stamp.size == entry.size, stamp.modified == entry.modifiedNanoseconds else { return nil }
        return entry.version
    }

    func store(_ version: String, for binary: String) {
        guard let stamp = Self.stamp(binary) else { return }
        entries[binary] = Entry(size: stamp.size, modifiedNanoseconds: stamp.modified, version: version)
        changed = true
    }

    /// Writes the cache (temp file + rename) if anything was added; failures only cost a later `--version`.
    func save() {
        guard changed, let file, let data = try? JSONEncoder().encode(entries) else { return }
        let folder = String(file[..<file.lastIndex(of: "/")!])
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let temporary = file + ".\(getpid()).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: data) else { return }
        if rename(temporary, file) != 0 { unlink(temporary) }
    }

    /// Size and modification time from stat(2). (Not FileManager's attributes: without full Foundation in
    /// the process their values do not cast to Int and Date, and every load ran `--version` again.)
    private static func stamp(_ path: String) -> (size: Int64, modified: Int64)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (Int64(info.st_size), Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }
}
