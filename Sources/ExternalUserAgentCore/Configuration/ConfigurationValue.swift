// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// A setting's value, as TOML can write it.
public enum ConfigurationValue: Sendable, Hashable, CustomStringConvertible {
    /// A TOML string, or the text of an environment variable.
    case string(String)
    /// `true` or `false`.
    case bool(Bool)
    /// A whole number.
    case integer(Int)
    /// A number with a fraction (seconds, for the timeouts).
    case number(Double)
    /// An array (`preference`, `allow`, `deny`, `flow-order`).
    case list([ConfigurationValue])

    /// The value written as TOML (`"work"`, `true`, `["a", "b"]`).
    public var description: String {
        switch self {
        case .string(let text):
            var escaped = ""
            for character in text {
                switch character {
                case "\"": escaped += "\\\""
                case "\\": escaped += "\\\\"
                case "\n": escaped += "\\n"
                default: escaped.append(character)
                }
            }
            return "\"\(escaped)\""
        case .bool(let value): return String(value)
        case .integer(let value): return String(value)
        case .number(let value): return String(value)
        case .list(let values): return "[" + values.map(\.description).joined(separator: ", ") + "]"
        }
    }

    /// The value as an agent option string: text as is, `true`/`false`, numbers in decimal.
    public var optionText: String {
        switch self {
        case .string(let text): text
        case .list(let values): values.map(\.optionText).joined(separator: ",")
        default: description
        }
    }

    /// What sort of value this is, for messages (`a string`, `an integer`).
    public var typeName: String {
        switch self {
        case .string: "a string"
        case .bool: "a boolean"
        case .integer: "an integer"
        case .number: "a floating-point number"
        case .list: "an array"
        }
    }

    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    package var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    var integerValue: Int? {
        if case .integer(let value) = self { return value }
        return nil
    }

    var secondsValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }

    package var stringList: [String]? {
        guard case .list(let values) = self else { return nil }
        var strings: [String] = []
        for value in values {
            guard let text = value.stringValue else { return nil }
            strings.append(text)
        }
        return strings
    }
}
