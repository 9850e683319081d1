// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import TOMLReader

/// One TOML configuration file, read with the `TOMLReader` module's `TOMLDocument` and checked against the schema.
package struct ConfigurationFile {
    /// What the file sets, with each setting's line.
    package var settings: [ConfigurationSetting] = []
    /// Unknown keys, each with the nearest known key.
    package var warnings: [ConfigurationWarning] = []

    /// Reads `bytes` (the contents of `path`) as a file of `layer`. Never traps, whatever the bytes.
    /// Throws `configurationInvalid` with `path:line:column` (`path:line` for a wrong value), the key or
    /// the line as written, and what was expected.
    package init(bytes: [UInt8], path: String, layer: ConfigurationLayer) throws(ExternalUserAgentError) {
        let document: TOMLDocument
        do {
            document = try TOMLDocument(bytes: bytes, file: path)
        } catch {
            let written = error.excerpt.map { " in '\($0)'" } ?? ""
            throw ExternalUserAgentError(
                .configurationInvalid,
                "\(path):\(error.line):\(error.column): not valid TOML\(written): \(error.message); "
                    + "fix the \(layer) configuration file (every key, commented: config.toml in eua's documentation "
                    + "folder, /usr/share/doc/eua/ when installed)")
        }
        try walk(document.root, path: [], file: path, layer: layer)
    }

    /// Checks every key of `table` (at `path`), in the order written.
    private mutating func walk(
        _ table: TOMLTable, path: [String], file: String,
        layer: ConfigurationLayer
    ) throws(ExternalUserAgentError) {
        for name in table.keys {
            guard let node = table[name] else { continue }
            let keyPath = path + [name]
            let key = ConfigurationKey(keyPath)
            let origin = ConfigurationOrigin(layer: layer, source: file, line: table.line(of: name))
            if case .table(let subtable) = node {
                if ConfigurationSchema.isTable(keyPath) {
                    try walk(subtable, path: keyPath, file: file, layer: layer)
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
                    "\(origin.location): key '\(key)': expected a table ([\(key)]), got \(node.typeName)")
            }
            guard let shape = ConfigurationSchema.shape(of: key) else {
                warnings.append(Self.unknown(origin, keyPath))
                continue
            }
            guard let value = Self.value(node) else {
                throw Self.invalid(origin, key, shape, got: "got \(node.typeName)")
            }
            if let problem = ConfigurationSchema.problem(with: value, for: shape) {
                throw Self.invalid(origin, key, shape, got: problem)
            }
            settings.append(ConfigurationSetting(key: key, value: value, origin: origin))
        }
    }

    static func invalid(
        _ origin: ConfigurationOrigin, _ key: ConfigurationKey, _ shape: ConfigurationSchema.Shape,
        got: String
    ) -> ExternalUserAgentError {
        ExternalUserAgentError(
            .configurationInvalid, "\(origin.location): key '\(key)': expected \(shape.expectation); \(got)")
    }

    private static func unknown(_ origin: ConfigurationOrigin, _ path: [String]) -> ConfigurationWarning {
        let hint = ConfigurationSchema.nearestKey(to: path).map { "; did you mean '\($0)'?" } ?? ""
        return ConfigurationWarning(
            origin: origin, message: "unknown key '\(ConfigurationKey(path))' is ignored\(hint)")
    }

    /// The value as a setting holds it; `nil` for tables, dates and times (which no setting takes).
    private static func value(_ node: TOMLValue) -> ConfigurationValue? {
        switch node {
        case .string(let text): return .string(text)
        case .bool(let value): return .bool(value)
        case .integer(let value): return .integer(value)
        case .float(let value): return .number(value)
        case .array(let elements):
            var values: [ConfigurationValue] = []
            for element in elements {
                guard let value = value(element) else { return nil }
                values.append(value)
            }
            return .list(values)
        case .table, .dateTime, .date, .time: return nil
        }
    }
}
