import ExternalUserAgentABI

/// libFuzzer target: the JSON a plugin hands the host — its `describe()` description and its events —
/// decoded as the loader and a running instance decode it. Any input must give a value or an error.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPluginJSON(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    _ = try? PluginWire.decode(PluginWire.PluginDescription.self, from: text)
    if let event = try? PluginWire.decode(PluginWire.Event.self, from: text) {
        // What decodes must encode again and read back as the same event.
        guard let again = try? PluginWire.encode(event), (try? PluginWire.decode(PluginWire.Event.self, from: again)) == event else {
            fatalError("a plugin event does not survive encode → decode")
        }
    }
    return 0
}
