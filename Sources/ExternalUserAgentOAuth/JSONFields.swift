// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore
import ExternalUserAgentABI

/// Reads the fields of a JSON object from the network with one set of rules: a missing required field,
/// a value of the wrong type or a number out of range is an ``InvalidFieldError`` naming the field —
/// never a trap, and never a silent default. `null` counts as absent.
struct JSONFields<Key: CodingKey> {
    /// The latest NumericDate accepted: 9999-12-31T23:59:59Z, the last second a date can be written in.
    static var latestNumericDate: Double { 253_402_300_799 }

    /// Where the fields come from: a `Decoder` (a type's `Codable` conformance), or an object that
    /// ``JSONValue/init(parsing:)`` read from the network (no `Codable` on the sign-in's path).
    private enum Source {
        case container(KeyedDecodingContainer<Key>)
        case object([String: JSONValue])
    }

    private let source: Source

    init(_ decoder: any Decoder) throws {
        source = .container(try decoder.container(keyedBy: Key.self))
    }

    /// The members of a JSON object.
    init(object: [String: JSONValue]) {
        source = .object(object)
    }

    /// Reads `data` as one JSON object (a number beyond a `Double` is read, so that the field it is in can be
    /// named); throws ``NotAJSONObject`` otherwise.
    init(json data: Data) throws(NotAJSONObject) {
        guard case .object(let members)? = JSONValue.read(data, hugeNumbers: true) else {
            throw NotAJSONObject()
        }
        self.init(object: members)
    }

    // The few ways a field is looked at; every rule below is written once on top of them.

    /// Whether the field is there and not `null`.
    func isPresent(_ key: Key) -> Bool {
        switch source {
        case .container(let container): container.contains(key) && (try? container.decodeNil(forKey: key)) == false
        case .object(let members): members[key.stringValue].map { $0 != .null } ?? false
        }
    }

    private func stringValue(_ key: Key) -> String? {
        switch source {
        case .container(let container): try? container.decode(String.self, forKey: key)
        case .object(let members): members[key.stringValue]?.stringValue
        }
    }

    private func numberValue(_ key: Key) -> Double? {
        switch source {
        case .container(let container): try? container.decode(Double.self, forKey: key)
        case .object(let members):
            if case .number(let number)? = members[key.stringValue], number.isFinite { number } else { nil }
        }
    }

    private func boolValue(_ key: Key) -> Bool? {
        switch source {
        case .container(let container): try? container.decode(Bool.self, forKey: key)
        case .object(let members): if case .bool(let flag)? = members[key.stringValue] { flag } else { nil }
        }
    }

    private func stringsValue(_ key: Key) -> [String]? {
        switch source {
        case .container(let container): return try? container.decode([String].self, forKey: key)
        case .object(let members):
            guard case .array(let elements)? = members[key.stringValue] else { return nil }
            let strings = elements.compactMap(\.stringValue)
            return strings.count == elements.count ? strings : nil
        }
    }

    /// A URL: on `Codable`'s path as `URL` decodes itself (a string for JSON, its own shape for other encoders),
    /// from the network a string `URL(string:)` reads.
    private func urlValue(_ key: Key) -> URL? {
        switch source {
        case .container(let container): try? container.decode(URL.self, forKey: key)
        case .object(let members): members[key.stringValue]?.stringValue.flatMap { URL(string: $0) }
        }
    }

    /// Every member of the object read from the network (a number beyond a `Double` left out); `nil` on
    /// `Codable`'s path.
    var objectMembers: [String: JSONValue]? {
        guard case .object(let members) = source else { return nil }
        return members.filter { if case .number(let number) = $0.value { number.isFinite } else { true } }
    }

    /// The decoding container, on `Codable`'s path (for a field of a `Decodable` type of its own).
    var container: KeyedDecodingContainer<Key>? {
        if case .container(let container) = source { container } else { nil }
    }

    /// The JSON type of the field's value, in words.
    private func kind(_ key: Key) -> String {
        switch source {
        case .container(let container):
            if (try? container.decodeNil(forKey: key)) == true { return "null" }
            if (try? container.decode(Bool.self, forKey: key)) != nil { return "true or false" }
            if let number = try? container.decode(Double.self, forKey: key) {
                return "the number \(Self.describe(number))"
            }
            if (try? container.decode(String.self, forKey: key)) != nil { return "a string" }
            if (try? container.nestedUnkeyedContainer(forKey: key)) != nil { return "an array" }
            if (try? container.nestedContainer(keyedBy: AnyKey.self, forKey: key)) != nil { return "an object" }
            return "a number too large to read"
        case .object(let members):
            switch members[key.stringValue] ?? .null {
            case .null: return "null"
            case .bool: return "true or false"
            case .number(let number):
                return number.isFinite ? "the number \(Self.describe(number))" : "a number too large to read"
            case .string: return "a string"
            case .array: return "an array"
            case .object: return "an object"
            }
        }
    }

    // The rules.

    /// A required string.
    func string(_ key: Key) throws -> String {
        guard let value = try optionalString(key) else {
            throw InvalidFieldError(field: key.stringValue, problem: "is missing")
        }
        return value
    }

    /// A string, when present.
    func optionalString(_ key: Key) throws -> String? {
        guard isPresent(key) else { return nil }
        guard let value = stringValue(key) else { throw wrongType(key, expected: "a string") }
        return value
    }

    /// A string when present and a string; anything else is ignored (for display-only fields).
    func lenientString(_ key: Key) -> String? {
        isPresent(key) ? stringValue(key) : nil
    }

    /// True or false, when present.
    func optionalBool(_ key: Key) throws -> Bool? {
        guard isPresent(key) else { return nil }
        guard let value = boolValue(key) else { throw wrongType(key, expected: "true or false") }
        return value
    }

    /// True or false when present and so; anything else is ignored.
    func lenientBool(_ key: Key) -> Bool? {
        isPresent(key) ? boolValue(key) : nil
    }

    /// An array of strings, when present.
    func optionalStrings(_ key: Key) throws -> [String]? {
        guard isPresent(key) else { return nil }
        guard let value = stringsValue(key) else { throw wrongType(key, expected: "an array of strings") }
        return value
    }

    /// An array of strings when present and so; anything else is ignored.
    func lenientStrings(_ key: Key) -> [String]? {
        isPresent(key) ? stringsValue(key) : nil
    }

    /// A required URL (a string `URL(string:)` reads).
    func url(_ key: Key) throws -> URL {
        guard let value = try optionalURL(key) else {
            throw InvalidFieldError(field: key.stringValue, problem: "is missing")
        }
        return value
    }

    /// A URL, when present.
    func optionalURL(_ key: Key) throws -> URL? {
        guard isPresent(key) else { return nil }
        if let url = urlValue(key) { return url }
        guard let text = stringValue(key) else { throw wrongType(key, expected: "a URL (a string)") }
        throw InvalidFieldError(field: key.stringValue, problem: "is not a URL (\(UntrustedText.quoted(text)))")
    }

    /// A URL when present and one; anything else is ignored.
    func lenientURL(_ key: Key) -> URL? {
        isPresent(key) ? urlValue(key) : nil
    }

    /// A required string or non-empty array of strings (an ID token's `aud`).
    func strings(_ key: Key) throws -> [String] {
        guard isPresent(key) else { throw InvalidFieldError(field: key.stringValue, problem: "is missing") }
        if let single = stringValue(key) { return [single] }
        guard let list = stringsValue(key) else {
            throw wrongType(key, expected: "a string or an array of strings")
        }
        guard !list.isEmpty else { throw InvalidFieldError(field: key.stringValue, problem: "is an empty array") }
        return list
    }

    /// A whole number in `range`, when present: a JSON number without a fraction.
    func optionalWholeNumber(_ key: Key, in range: ClosedRange<Int>) throws -> Int? {
        guard isPresent(key) else { return nil }
        guard let number = numberValue(key) else { throw wrongType(key, expected: "a number") }
        guard number == number.rounded(), number >= Double(range.lowerBound), number <= Double(range.upperBound) else {
            throw InvalidFieldError(
                field: key.stringValue,
                problem: "is \(Self.describe(number)); it must be a whole number "
                    + "from \(range.lowerBound) to \(range.upperBound)")
        }
        return Int(number)
    }

    /// A whole number of seconds in `range`, when present: a JSON number (a fraction is rounded down)
    /// or a string of digits, as some servers send.
    func seconds(_ key: Key, in range: ClosedRange<Int>) throws -> Int? {
        guard isPresent(key) else { return nil }
        let rule = "it must be a whole number of seconds from \(range.lowerBound) to \(range.upperBound)"
        if let text = stringValue(key) {
            guard let value = Int(text), range.contains(value) else {
                throw InvalidFieldError(
                    field: key.stringValue, problem: "is the string \(UntrustedText.quoted(text)); \(rule)")
            }
            return value
        }
        guard let number = numberValue(key) else { throw wrongType(key, expected: "a number") }
        guard number.isFinite, number >= Double(range.lowerBound), number < Double(range.upperBound) + 1 else {
            throw InvalidFieldError(field: key.stringValue, problem: "is \(Self.describe(number)); \(rule)")
        }
        return Int(number.rounded(.down))
    }

    /// A NumericDate (RFC 7519 §2: seconds since 1970-01-01T00:00:00Z, fractions allowed), when present:
    /// a JSON number from 0 to `latestNumericDate`.
    func numericDate(_ key: Key) throws -> Date? {
        guard isPresent(key) else { return nil }
        guard let number = numberValue(key) else {
            throw wrongType(key, expected: "a NumericDate (a number of seconds since 1970)")
        }
        guard number.isFinite, number >= 0, number <= Self.latestNumericDate else {
            throw InvalidFieldError(
                field: key.stringValue,
                problem: "is \(Self.describe(number)), not a time between 1970 and 9999 in seconds since 1970")
        }
        return Date(timeIntervalSince1970: number)
    }

    /// A required NumericDate.
    func requiredNumericDate(_ key: Key) throws -> Date {
        guard let date = try numericDate(key) else {
            throw InvalidFieldError(field: key.stringValue, problem: "is missing")
        }
        return date
    }

    private func wrongType(_ key: Key, expected: String) -> InvalidFieldError {
        InvalidFieldError(field: key.stringValue, problem: "is \(kind(key)), not \(expected)")
    }

    /// `3600`, `1.5`, `1e+300`.
    static func describe(_ number: Double) -> String {
        if number.isFinite, number.rounded() == number, abs(number) < 1e15 { return String(Int64(number)) }
        return "\(number)"
    }
}

/// A body that is not one JSON object.
struct NotAJSONObject: Error {}

extension JSONValue {
    /// `data` read as one JSON value by the ABI's strict reader — the one reader of what servers, files and
    /// options give the OAuth client; `nil` when it is not JSON (or holds a member name twice). With
    /// `hugeNumbers`, a number beyond a `Double` is read as infinite, so that the field rules can name it.
    static func read(_ data: some DataProtocol, hugeNumbers: Bool = false) -> JSONValue? {
        try? JSONValue(parsing: String(decoding: data, as: UTF8.self), hugeNumbers: hugeNumbers)
    }
}

/// Any key, for looking at a nested object's type.
private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
