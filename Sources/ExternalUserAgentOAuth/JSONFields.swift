#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads the fields of a JSON object from the network with one set of rules: a missing required field,
/// a value of the wrong type or a number out of range is an ``InvalidFieldError`` naming the field —
/// never a trap, and never a silent default. `null` counts as absent.
struct JSONFields<Key: CodingKey> {
    /// The latest NumericDate accepted: 9999-12-31T23:59:59Z, the last second a date can be written in.
    static var latestNumericDate: Double { 253_402_300_799 }

    let container: KeyedDecodingContainer<Key>

    init(_ decoder: any Decoder) throws {
        container = try decoder.container(keyedBy: Key.self)
    }

    /// Whether the field is there and not `null`.
    func isPresent(_ key: Key) -> Bool {
        container.contains(key) && (try? container.decodeNil(forKey: key)) == false
    }

    /// A required string.
    func string(_ key: Key) throws -> String {
        guard let value = try optionalString(key) else { throw InvalidFieldError(field: key.stringValue, problem: "is missing") }
        return value
    }

    /// A string, when present.
    func optionalString(_ key: Key) throws -> String? {
        guard isPresent(key) else { return nil }
        guard let value = try? container.decode(String.self, forKey: key) else { throw wrongType(key, expected: "a string") }
        return value
    }

    /// A string when present and a string; anything else is ignored (for display-only fields).
    func lenientString(_ key: Key) -> String? {
        try? container.decodeIfPresent(String.self, forKey: key)
    }

    /// A required string or non-empty array of strings (an ID token's `aud`).
    func strings(_ key: Key) throws -> [String] {
        guard isPresent(key) else { throw InvalidFieldError(field: key.stringValue, problem: "is missing") }
        if let single = try? container.decode(String.self, forKey: key) { return [single] }
        guard let list = try? container.decode([String].self, forKey: key) else {
            throw wrongType(key, expected: "a string or an array of strings")
        }
        guard !list.isEmpty else { throw InvalidFieldError(field: key.stringValue, problem: "is an empty array") }
        return list
    }

    /// A whole number of seconds in `range`, when present: a JSON number (a fraction is rounded down)
    /// or a string of digits, as some servers send.
    func seconds(_ key: Key, in range: ClosedRange<Int>) throws -> Int? {
        guard isPresent(key) else { return nil }
        let rule = "it must be a whole number of seconds from \(range.lowerBound) to \(range.upperBound)"
        if let text = try? container.decode(String.self, forKey: key) {
            guard let value = Int(text), range.contains(value) else {
                throw InvalidFieldError(field: key.stringValue, problem: "is the string \(UntrustedText.quoted(text)); \(rule)")
            }
            return value
        }
        guard let number = try? container.decode(Double.self, forKey: key) else { throw wrongType(key, expected: "a number") }
        guard number.isFinite, number >= Double(range.lowerBound), number < Double(range.upperBound) + 1 else {
            throw InvalidFieldError(field: key.stringValue, problem: "is \(Self.describe(number)); \(rule)")
        }
        return Int(number.rounded(.down))
    }

    /// A NumericDate (RFC 7519 §2: seconds since 1970-01-01T00:00:00Z, fractions allowed), when present:
    /// a JSON number from 0 to `latestNumericDate`.
    func numericDate(_ key: Key) throws -> Date? {
        guard isPresent(key) else { return nil }
        guard let number = try? container.decode(Double.self, forKey: key) else {
            throw wrongType(key, expected: "a NumericDate (a number of seconds since 1970)")
        }
        guard number.isFinite, number >= 0, number <= Self.latestNumericDate else {
            throw InvalidFieldError(field: key.stringValue,
                problem: "is \(Self.describe(number)), not a time between 1970 and 9999 in seconds since 1970")
        }
        return Date(timeIntervalSince1970: number)
    }

    /// A required NumericDate.
    func requiredNumericDate(_ key: Key) throws -> Date {
        guard let date = try numericDate(key) else { throw InvalidFieldError(field: key.stringValue, problem: "is missing") }
        return date
    }

    private func wrongType(_ key: Key, expected: String) -> InvalidFieldError {
        InvalidFieldError(field: key.stringValue, problem: "is \(kind(key)), not \(expected)")
    }

    /// The JSON type of the field's value, in words.
    private func kind(_ key: Key) -> String {
        if (try? container.decodeNil(forKey: key)) == true { return "null" }
        if (try? container.decode(Bool.self, forKey: key)) != nil { return "true or false" }
        if let number = try? container.decode(Double.self, forKey: key) { return "the number \(Self.describe(number))" }
        if (try? container.decode(String.self, forKey: key)) != nil { return "a string" }
        if (try? container.nestedUnkeyedContainer(forKey: key)) != nil { return "an array" }
        if (try? container.nestedContainer(keyedBy: AnyKey.self, forKey: key)) != nil { return "an object" }
        return "a number too large to read"
    }

    /// `3600`, `1.5`, `1e+300`.
    static func describe(_ number: Double) -> String {
        if number.isFinite, number.rounded() == number, abs(number) < 1e15 { return String(Int64(number)) }
        return "\(number)"
    }
}

/// Any key, for looking at a nested object's type.
private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
