#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// What each plugin file offered when it was last loaded — the agent and receiver ids, nothing about
/// availability — kept in `$XDG_CACHE_HOME/eua/plugin-index.json` (else `~/.cache/eua/…`).
///
/// It lets a command that needs a few known ids (`eua open --agent X`, `eua login --agent X`) skip
/// opening the other plugins (``PluginLoader/load(offering:)``). An entry counts only while the file's
/// device, inode, size, modification and change times are what they were; a wrong or missing entry
/// costs only time, because whatever is not found among the files the index points at is looked for
/// in all of them. Written atomically (temporary file + rename); a failure to write is only logged.
public struct PluginIndexFile: Sendable, Hashable {
    /// Where the index is kept.
    public var path: String

    public init(path: String) {
        self.path = path
    }

    /// `$XDG_CACHE_HOME/eua/plugin-index.json`, else `$HOME/.cache/eua/plugin-index.json`; `nil` with neither.
    public static func standard(environment: [String: String]) -> PluginIndexFile? {
        let base = environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? environment["HOME"].flatMap { $0.isEmpty ? nil : $0 + "/.cache" }
        return base.map { PluginIndexFile(path: $0 + "/eua/plugin-index.json") }
    }
}

/// The index's contents, read once per load.
struct PluginIndex {
    struct Entry: Codable, Equatable {
        var stamp: FileStamp
        var ids: [String]
    }

    /// What identifies one version of a file.
    struct FileStamp: Codable, Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: Int64
        var changed: Int64

        init?(path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
            changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
        }
    }

    private struct Contents: Codable {
        var version = 1
        var files: [String: Entry] = [:]
    }

    let file: PluginIndexFile
    private var contents: Contents
    private var dirty = false

    init(reading file: PluginIndexFile) {
        self.file = file
        let data = FileManager.default.contents(atPath: file.path)
        let read = data.flatMap { try? JSONDecoder().decode(Contents.self, from: $0) }
        contents = read?.version == 1 ? read! : Contents()
    }

    /// The ids `path` offered when last loaded, if it is still the same file.
    func ids(of path: String) -> Set<String>? {
        guard let entry = contents.files[path], let stamp = FileStamp(path: path), stamp == entry.stamp else { return nil }
        return Set(entry.ids)
    }

    /// Notes what `path` offers now.
    mutating func record(_ path: String, ids: [String]) {
        guard let stamp = FileStamp(path: path) else { return }
        let entry = Entry(stamp: stamp, ids: ids.sorted())
        if contents.files[path] != entry {
            contents.files[path] = entry
            dirty = true
        }
    }

    /// Writes the index if it changed; returns why not when that failed.
    func save() -> String? {
        guard dirty else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(contents) else { return "could not encode the index" }
        let folder = PluginLoader.folder(of: file.path)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            return "could not create \(folder): \(error)"
        }
        let temporary = file.path + ".\(getpid()).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: data) else {
            return "could not write \(temporary)"
        }
        guard rename(temporary, file.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            return "could not rename \(temporary) to \(file.path): \(reason)"
        }
        return nil
    }
}
