// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentABI

/// What a local server sends when a test replaces some of its fields with raw JSON text.
enum RawJSON {
    /// The fields of `document` with `overrides` (raw JSON text per key; empty: left out) applied.
    /// An override that is not JSON is sent as a string.
    static func overriding(_ document: some Encodable, with overrides: [String: String]) -> [String: JSONValue] {
        var fields =
            (try? JSONEncoder().encode(document)).flatMap {
                try? JSONDecoder().decode([String: JSONValue].self, from: $0)
            }
            ?? [:]
        for (key, text) in overrides {
            if text.isEmpty {
                fields[key] = nil
            } else {
                fields[key] = (try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))) ?? .string(text)
            }
        }
        return fields
    }
}

/// ID token claims given as JSON values, signed as they are.
struct RawClaims: Encodable {
    var values: [String: JSONValue]

    func encode(to encoder: any Encoder) throws { try values.encode(to: encoder) }
}
