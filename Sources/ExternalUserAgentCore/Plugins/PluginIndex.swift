// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import ExternalUserAgentSystem

/// What each plugin file offered when it was last loaded — the agent and receiver ids, nothing about
/// availability — kept in `$XDG_CACHE_HOME/eua/plugin-index` (else `~/.cache/eua/…`).
///
/// It lets a command that needs a few known ids (`eua open --agent X`, `eua login --agent X`) skip
/// opening the other plugins (`PluginLoader.load(offering:)`). An entry counts only while the file's
/// device, inode, size, modification and change times are what they were; a wrong or missing entry
/// costs only time, because whatever is not found among the files the index points at is looked for
/// in all of them. Written atomically (temporary file + rename), whenever a load learned something, without
/// the entries of files that are gone; a failure to write is only logged.
public struct PluginIndexFile: Sendable, Hashable {
    /// Where the index is kept.
    public var path: String

    /// The index kept in the file at `path`.
    public init(path: String) {
        self.path = path
    }

    /// `$XDG_CACHE_HOME/eua/plugin-index`, else `$HOME/.cache/eua/plugin-index`; `nil` with neither.
    public static func standard(environment: [String: String]) -> PluginIndexFile? {
        let base =
            environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? environment["HOME"].flatMap { $0.isEmpty ? nil : $0 + "/.cache" }
        return base.map { PluginIndexFile(path: $0 + "/eua/plugin-index") }
    }
}

/// The index's contents, read once per load.
///
/// One line a file, `device inode size mtime-ns ctime-ns ids path`, after a `eua-plugin-index 1` line;
/// `ids` is comma-separated (`-` for none) and the path is the rest of the line. Plain text rather than
/// JSON on purpose: it is read by every `eua open`/`eua login`, and decoding it with `JSONDecoder` cost
/// about a millisecond of Swift runtime generic instantiation each time (profiled).
package struct PluginIndex {
    package struct Entry: Equatable, Sendable {
        package var stamp: FileStamp
        package var ids: [String]

        package init(stamp: FileStamp, ids: [String]) {
            (self.stamp, self.ids) = (stamp, ids)
        }
    }

    /// What identifies one version of a file.
    package struct FileStamp: Equatable, Sendable {
        package var device: UInt64
        package var inode: UInt64
        package var size: Int64
        package var modified: Int64
        package var changed: Int64

        package init(device: UInt64, inode: UInt64, size: Int64, modified: Int64, changed: Int64) {
            (self.device, self.inode, self.size, self.modified, self.changed) = (device, inode, size, modified, changed)
        }

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

    package static let header = "eua-plugin-index 1"

    /// The longest index read, 4 MiB: a line is about 150 bytes, one per plugin file ever found.
    static let maximumSize = 4 << 20

    let file: PluginIndexFile
    private var files: [String: Entry] = [:]
    private var dirty = false

    init(reading file: PluginIndexFile) {
        self.file = file
        // An unreadable or oversized index is as good as none: every plugin file is then opened, and the index
        // written anew.
        guard let bytes = try? SmallFiles.read(file.path, limit: Self.maximumSize) else { return }
        files = Self.entries(parsing: bytes)
    }

    /// The entries of an index file's bytes (none when the header is wrong); a malformed line is skipped.
    ///
    /// Read as bytes, not as a `String`: splitting text walks it by `Character` (grapheme breaking), which cost
    /// ~75,000 instructions a line: 1.6 ms of CPU in every `eua login` with the 730 entries a developer's index had gathered.
    package static func entries(parsing bytes: [UInt8]) -> [String: Entry] {
        var lines = bytes.split(separator: UInt8(ascii: "\n"))[...]
        guard let first = lines.popFirst(), first.elementsEqual(header.utf8) else { return [:] }
        var entries: [String: Entry] = [:]
        for line in lines {
            let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 6, omittingEmptySubsequences: false)
                .map { String(decoding: $0, as: UTF8.self) }
            guard fields.count == 7, let device = UInt64(fields[0]), let inode = UInt64(fields[1]),
                let size = Int64(fields[2]), let modified = Int64(fields[3]), let changed = Int64(fields[4]),
                !fields[6].isEmpty
            else { continue }
            // `-` alone means none; as one of several ids it is no id either (``record(_:ids:)`` never writes one).
            let ids = fields[5].utf8.split(separator: UInt8(ascii: ",")).map { String(decoding: $0, as: UTF8.self) }
                .filter { $0 != "-" }
            entries[fields[6]] = Entry(
                stamp: FileStamp(device: device, inode: inode, size: size, modified: modified, changed: changed),
                ids: ids)
        }
        return entries
    }

    /// The ids `path` offered when last loaded, if it is still the same file.
    func ids(of path: String) -> Set<String>? {
        guard let entry = files[path], let stamp = FileStamp(path: path), stamp == entry.stamp else { return nil }
        return Set(entry.ids)
    }

    /// Notes what `path` offers now. A path or id the line format cannot hold is not noted (that file is
    /// then always opened).
    mutating func record(_ path: String, ids: [String]) {
        guard Self.holds(path: path, ids: ids), let stamp = FileStamp(path: path) else { return }
        let entry = Entry(stamp: stamp, ids: ids.sorted())
        if files[path] != entry {
            files[path] = entry
            dirty = true
        }
    }

    /// Writes the index if it changed, without the entries of files that are gone (a plugin folder removed,
    /// an old install), so it does not grow with every folder ever searched; returns why not when that failed.
    func save() -> String? {
        guard dirty else { return nil }
        let text = Self.text(of: files.filter { access($0.key, F_OK) == 0 })
        let folder = SmallFiles.folder(of: file.path)
        if let problem = SmallFiles.makeFolders(folder, mode: 0o755) { return problem }
        return SmallFiles.replace(file.path, with: text, mode: 0o644)
    }

    /// Whether a line can hold `path` and `ids` so that ``entries(parsing:)`` reads them back: checked on bytes, as
    /// the reader splits (`"\r\n"` is one `Character` but holds a line break; `",\u{301}"` is one but holds a comma).
    package static func holds(path: String, ids: [String]) -> Bool {
        !path.isEmpty && !path.utf8.contains(UInt8(ascii: "\n"))
            && ids.allSatisfy { id in
                !id.isEmpty && id != "-" && !id.contains(where: \.isWhitespace)
                    && !id.utf8.contains {
                        $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\n")
                    }
            }
    }

    /// The file's text for `entries`, sorted by path; ``entries(parsing:)`` reads it back to the same entries.
    package static func text(of entries: [String: Entry]) -> String {
        var text = header + "\n"
        for (path, entry) in entries.sorted(by: { $0.key < $1.key }) {
            let stamp = entry.stamp
            let ids = entry.ids.isEmpty ? "-" : entry.ids.joined(separator: ",")
            text += "\(stamp.device) \(stamp.inode) \(stamp.size) \(stamp.modified) \(stamp.changed) \(ids) \(path)\n"
        }
        return text
    }
}
