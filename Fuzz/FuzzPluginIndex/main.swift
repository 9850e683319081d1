import ExternalUserAgent

/// libFuzzer target: the plugin index (`$XDG_CACHE_HOME/eua/plugin-index`), which every `eua open` and
/// `eua login` reads. Any bytes must give entries or none, never a trap or a hang, and what was read must
/// survive write → read unchanged: every path non-empty and on one line, no empty or `-` id.
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
    return 0
}
