#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JWTKit

/// Any JSON value: what a local server sends when a test replaces some of its fields with raw JSON text.
enum RawJSON: Codable, Sendable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case array([RawJSON])
    case object([String: RawJSON])
    case null

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([RawJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: RawJSON].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }

    /// The fields of `document` with `overrides` (raw JSON text per key; empty: left out) applied.
    /// An override that is not JSON is sent as a string.
    static func overriding(_ document: some Encodable, with overrides: [String: String]) -> [String: RawJSON] {
        var fields = (try? JSONEncoder().encode(document)).flatMap { try? JSONDecoder().decode([String: RawJSON].self, from: $0) }
            ?? [:]
        for (key, text) in overrides {
            if text.isEmpty {
                fields[key] = nil
            } else {
                fields[key] = (try? JSONDecoder().decode(RawJSON.self, from: Data(text.utf8))) ?? .string(text)
            }
        }
        return fields
    }
}

/// ID token claims given as JSON values, signed as they are.
struct RawClaims: JWTPayload {
    var values: [String: RawJSON]

    init(values: [String: RawJSON]) { self.values = values }
    init(from decoder: any Decoder) throws { values = try [String: RawJSON](from: decoder) }
    func encode(to encoder: any Encoder) throws { try values.encode(to: encoder) }
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
