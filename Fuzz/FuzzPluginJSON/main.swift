import ExternalUserAgent
import ExternalUserAgentABI

/// libFuzzer target: the JSON a plugin hands the host — its `describe()` text and its events — through
/// the very checks the loader and a running instance apply (``PluginInput``). Any input must give a value
/// or a refusal, never a trap; and an event that decodes must survive encode → decode unchanged.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPluginJSON(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: count)
    PluginInput.checkDescription(bytes: bytes)
    PluginInput.checkEvent(bytes: bytes)
    let text = String(decoding: bytes, as: UTF8.self)
    if let event = try? PluginWire.decode(PluginWire.Event.self, from: text) {
        guard let again = try? PluginWire.encode(event),
              (try? PluginWire.decode(PluginWire.Event.self, from: again)) == event else {
            fatalError("a plugin event does not survive encode → decode")
        }
    }
    return 0
}
