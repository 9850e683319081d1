// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore

/// libFuzzer target: the plugin index (`$XDG_CACHE_HOME/eua/plugin-index`), which every `eua open` and
/// `eua login` reads. Any bytes must give entries or none, never a trap or a hang, and what was read must
/// survive write → read unchanged: every path non-empty and on one line, no empty or `-` id. And an entry that
/// `PluginIndex.holds(path:ids:)` lets the loader record — here a path and ids cut from the input at NUL bytes —
/// must read back as written.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPluginIndex(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let entries = PluginIndex.entries(parsing: Array(UnsafeBufferPointer(start: data, count: count)))
    for (path, entry) in entries {
        guard !path.isEmpty, !path.utf8.contains(UInt8(ascii: "\n")) else {
            fatalError("an index entry's path is empty or spans lines: \(path.debugDescription)")
        }
        guard entry.ids.allSatisfy({ !$0.isEmpty && $0 != "-" }) else {
            fatalError("an index entry has an empty or '-' id: \(entry.ids)")
        }
    }
    guard PluginIndex.entries(parsing: Array(PluginIndex.text(of: entries).utf8)) == entries else {
        fatalError("the plugin index does not survive write → read")
    }
    let parts = UnsafeBufferPointer(start: data, count: count).split(separator: 0, omittingEmptySubsequences: false)
        .map { String(decoding: $0, as: UTF8.self) }
    if let path = parts.first, PluginIndex.holds(path: path, ids: Array(parts.dropFirst())) {
        let entry = PluginIndex.Entry(
            stamp: PluginIndex.FileStamp(device: 1, inode: 2, size: 3, modified: 4, changed: 5),
            ids: parts.dropFirst().sorted())
        guard PluginIndex.entries(parsing: Array(PluginIndex.text(of: [path: entry]).utf8)) == [path: entry] else {
            fatalError("an entry the loader may record does not read back: \(path.debugDescription) \(entry.ids)")
        }
    }
    return 0
}
