// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore
import ExternalUserAgentABI
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// libFuzzer target: the JSON a plugin hands the host — its `describe()` text and its events — through
/// the very checks the loader and a running instance apply (``PluginInput``). Any input must give a value
/// or a refusal, never a trap; an event that reads must survive write → read unchanged (and any value, compact or indented); and whatever the
/// ABI's own JSON reader accepts, `JSONDecoder` must accept too and read as the same value (the reader may
/// refuse more: duplicate member names, deeper nesting, numbers beyond a `Double`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPluginJSON(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: count)
    PluginInput.checkDescription(bytes: bytes)
    PluginInput.checkEvent(bytes: bytes)
    let text = String(decoding: bytes, as: UTF8.self)
    if let value = try? JSONValue(parsing: text) {
        guard (try? JSONValue(parsing: value.jsonText)) == value else {
            fatalError("a JSON value does not survive write → read")
        }
        // JSONDecoder refuses a zero with an unsigned exponent (`0e3`), which RFC 8259 allows and the reader reads
        // (Fuzz/regressions/FuzzPluginJSON/zero-with-exponent.json): such texts are not compared.
        guard (try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))) == value || hasZeroWithExponent(text)
        else {
            fatalError("the ABI's JSON reader accepted a text JSONDecoder refuses or reads differently")
        }
    }
    if let event = try? PluginABI.Event(jsonText: text) {
        guard (try? PluginABI.Event(jsonText: event.jsonText)) == event,
            (try? PluginABI.decode(PluginABI.Event.self, from: event.jsonText)) == event
        else {
            fatalError("a plugin event does not survive write → read")
        }
    }
    return 0
}

/// Whether `text` holds `0e` or `0E` followed by a digit where a number may start with that zero.
private func hasZeroWithExponent(_ text: String) -> Bool {
    let bytes = Array(text.utf8)
    for index in bytes.indices.dropLast(2)
    where bytes[index] == UInt8(ascii: "0")
        && (bytes[index + 1] | 0x20) == UInt8(ascii: "e")
        && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index + 2])
    {
        let before = index == 0 ? nil : bytes[index - 1]
        if before.map({ !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) && $0 != UInt8(ascii: ".") }) ?? true {
            return true
        }
    }
    return false
}
