// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PluginABI {
    /// Encodes `value` as compact UTF-8 JSON text with sorted keys.
    public static func encode<Value: Encodable>(_ value: Value) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// Decodes `Value` from UTF-8 JSON text.
    public static func decode<Value: Decodable>(_ type: Value.Type, from text: String) throws -> Value {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }

    /// Options cross the ABI as a JSON object of string values.
    public static func decodeOptions(_ text: String?) throws -> [String: String] {
        try options(fromJSONText: text)
    }
}
