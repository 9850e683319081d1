// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// Compact JSON text written by hand, with sorted keys and unescaped slashes, for what plugins send
/// from `describe()`.
///
/// `JSONEncoder` would do, but in a plugin every `Codable` type it meets makes the Swift runtime
/// instantiate generic containers and look up conformances by scanning every loaded image's records;
/// each plugin has its own copy of these types, so `eua agents` paid that once per plugin (profiled:
/// about a tenth of its time). Writing the few shapes of the description directly costs nothing of that.
extension JSONValue {
    /// This value as compact JSON text (object keys sorted; a number with no fraction as an integer).
    public var jsonText: String {
        var out = ""
        write(to: &out)
        return out
    }

    func write(to out: inout String) {
        switch self {
        case .string(let value): JSONValue.writeString(value, to: &out)
        case .number(let value): out += JSONValue.numberText(value)
        case .bool(let value): out += value ? "true" : "false"
        case .null: out += "null"
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { out += "," }
                JSONValue.writeString(key, to: &out)
                out += ":"
                members[key]!.write(to: &out)
            }
            out += "}"
        }
    }

    /// RFC 8259 §7: `"` and `\` escaped, control characters as `\n`-style or `\u00XX`; nothing else.
    static func writeString(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case let control where control.value < 0x20:
                let hex = String(control.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// Integers exactly (up to 2^53), other finite numbers in Swift's shortest form; JSON has no
    /// infinity or NaN, so those are `null`.
    static func numberText(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 { return String(Int64(value)) }
        return "\(value)"
    }
}

extension PluginABI.PluginDescription {
    /// The description as JSON text, the way `describe()` returns it (see ``JSONValue/jsonText``).
    public var jsonText: String {
        JSONValue.object([
            "id": .string(id), "name": .string(name), "version": .string(version),
            "agents": .array(agents.map(\.jsonValue)), "receivers": .array(receivers.map(\.jsonValue)),
        ]).jsonText
    }
}

extension PluginABI.Component {
    /// The component as a JSON value; absent optionals are left out, as `JSONEncoder` does.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = [
            "id": .string(id), "name": .string(name), "available": .bool(available),
            "reasons": .array(reasons.map(JSONValue.string)),
        ]
        if let kind { members["kind"] = .string(kind) }
        if let family { members["family"] = .string(family) }
        if let version { members["version"] = .string(version) }
        if let details { members["details"] = .object(details) }
        return .object(members)
    }
}
