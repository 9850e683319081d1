import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Browser versions read with `--version`, kept in `$XDG_CACHE_HOME/eua/browser-versions.json` so that
/// loading the plugins does not start a browser each time. An entry is used only while the binary's
/// size and modification time are unchanged.
final class VersionCache: @unchecked Sendable {
    private struct Entry: Codable {
        var size: Int
        var modified: Double
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
              stamp.size == entry.size, stamp.modified == entry.modified else { return nil }
        return entry.version
    }

    func store(_ version: String, for binary: String) {
        guard let stamp = Self.stamp(binary) else { return }
        entries[binary] = Entry(size: stamp.size, modified: stamp.modified, version: version)
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

    private static func stamp(_ path: String) -> (size: Int, modified: Double)? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let size = attributes[.size] as? Int, let modified = attributes[.modificationDate] as? Date else { return nil }
        return (size, modified.timeIntervalSince1970)
    }
}
