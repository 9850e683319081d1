import TOMLKit

/// One TOML configuration file, read with TOMLKit and checked against the schema.
///
/// TOMLKit reports the line of a syntax error but not where each value was written, so the line of
/// a wrong or unknown key is found by ``TOMLKeyLocator`` in the text TOMLKit already accepted.
struct ConfigurationFile {
    /// What the file sets, with each setting's line.
    var settings: [ConfigurationSetting] = []
    /// Unknown keys, each with the nearest known key.
    var warnings: [ConfigurationWarning] = []

    /// Reads `text` (the contents of `path`) as a file of `layer`.
    /// Throws `configurationInvalid` with `path:line`, the key and what was expected.
    init(text: String, path: String, layer: ConfigurationLayer) throws(ExternalUserAgentError) {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            let line = error.source.begin.line
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let written = line >= 1 && line <= lines.count ? " in '\(lines[line - 1].trimmingWhitespace())'" : ""
            let what = error.description.split(separator: "\n").map { $0.trimmingWhitespace() }.joined(separator: " ")
            throw ExternalUserAgentError(
                .configurationInvalid,
                "\(path):\(line):\(error.source.begin.column): not valid TOML\(written): \(what); "
                    + "fix the \(layer) configuration file (see Examples/config.toml for the format)")
        } catch {
            throw ExternalUserAgentError(.configurationInvalid, "\(path): not valid TOML: \(error)")
        }
        let locator = TOMLKeyLocator(text: text)
        try walk(table, path: [], file: path, layer: layer, locator: locator)
    }

    private mutating func walk(_ table: TOMLTable, path: [String], file: String, layer: ConfigurationLayer,
                               locator: TOMLKeyLocator) throws(ExternalUserAgentError) {
        for name in table.keys.sorted() {
            guard let node = table[name] else { continue }
            let keyPath = path + [name]
            let key = ConfigurationKey(keyPath)
            let origin = ConfigurationOrigin(layer: layer, source: file, line: locator.line(of: keyPath))
            if let subtable = node.table {
                if ConfigurationSchema.isTable(keyPath) {
                    try walk(subtable, path: keyPath, file: file, layer: layer, locator: locator)
                } else if let shape = ConfigurationSchema.shape(of: key) {
                    throw Self.invalid(origin, key, shape, got: "got a table")
                } else {
                    warnings.append(Self.unknown(origin, keyPath))
                }
                continue
            }
            if ConfigurationSchema.isTable(keyPath) {
                throw ExternalUserAgentError(
                    .configurationInvalid,
                    "\(origin.location): key '\(key)': expected a table ([\(key)]), got \(Self.typeName(node.type))")
            }
            guard let shape = ConfigurationSchema.shape(of: key) else {
                warnings.append(Self.unknown(origin, keyPath))
                continue
            }
            guard let value = Self.value(node) else {
                throw Self.invalid(origin, key, shape, got: "got \(Self.typeName(node.type))")
            }
            if let problem = ConfigurationSchema.problem(with: value, for: shape) {
                throw Self.invalid(origin, key, shape, got: problem)
            }
            settings.append(ConfigurationSetting(key: key, value: value, origin: origin))
        }
    }

    static func invalid(_ origin: ConfigurationOrigin, _ key: ConfigurationKey, _ shape: ConfigurationSchema.Shape,
                        got: String) -> ExternalUserAgentError {
        ExternalUserAgentError(
            .configurationInvalid, "\(origin.location): key '\(key)': expected \(shape.expectation); \(got)")
    }

    private static func unknown(_ origin: ConfigurationOrigin, _ path: [String]) -> ConfigurationWarning {
        let hint = ConfigurationSchema.nearestKey(to: path).map { "; did you mean '\($0)'?" } ?? ""
        return ConfigurationWarning(
            origin: origin, message: "unknown key '\(ConfigurationKey(path))' is ignored\(hint)")
    }

    private static func value(_ node: any TOMLValueConvertible) -> ConfigurationValue? {
        switch node.type {
        case .string: return node.string.map(ConfigurationValue.string)
        case .bool: return node.bool.map(ConfigurationValue.bool)
        case .int: return node.int.map(ConfigurationValue.integer)
        case .double: return node.double.map(ConfigurationValue.number)
        case .array:
            guard let array = node.array else { return nil }
            var values: [ConfigurationValue] = []
            for element in array {
                guard let value = value(element) else { return nil }
                values.append(value)
            }
            return .list(values)
        default: return nil
        }
    }

    private static func typeName(_ type: TOMLType) -> String {
        switch type {
        case .table: "a table"
        case .array: "an array"
        case .string: "a string"
        case .int: "an integer"
        case .double: "a floating-point number"
        case .bool: "a boolean"
        case .date: "a date"
        case .time: "a time"
        case .dateTime: "a date-time"
        }
    }
}
