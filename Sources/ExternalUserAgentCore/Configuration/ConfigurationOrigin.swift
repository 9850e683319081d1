// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// Where one setting was written: its layer and the file and line, environment variable, or code.
public struct ConfigurationOrigin: Sendable, Hashable, CustomStringConvertible {
    /// The layer the setting belongs to.
    public var layer: ConfigurationLayer
    /// The file path, environment variable name, `code` or `built-in`.
    public var source: String
    /// The line in `source`, for files (1-based), when known.
    public var line: Int?

    /// An origin in `layer`, from `source` (a path, a variable name, `code`), at `line` for files.
    public init(layer: ConfigurationLayer, source: String, line: Int? = nil) {
        self.layer = layer
        self.source = source
        self.line = line
    }

    /// `source:line`, or `source` when the line is not known.
    public var location: String {
        line.map { "\(source):\($0)" } ?? source
    }

    /// `user file /home/me/.config/eua/config.toml:3`, `environment EUA_AGENT`, `code` (or `<flag> on the command
    /// line`, see ``CodeConfiguration/sources``), `built-in defaults`.
    public var description: String {
        switch layer {
        case .defaults: "built-in defaults"
        case .code: source == "code" ? "code" : "\(source) on the command line"
        case .environment: "environment \(source)"
        case .system, .user, .managed: "\(layer) file \(location)"
        }
    }
}

/// One setting from one layer.
public struct ConfigurationSetting: Sendable, Hashable {
    /// The key set.
    public var key: ConfigurationKey
    /// The value, checked against the schema.
    public var value: ConfigurationValue
    /// Where it was written.
    public var origin: ConfigurationOrigin

    /// A setting of `key` to `value`, written at `origin`.
    public init(key: ConfigurationKey, value: ConfigurationValue, origin: ConfigurationOrigin) {
        self.key = key
        self.value = value
        self.origin = origin
    }
}

/// A setting that had no effect because the managed file pins its key, or pins the agent whose locked option it sets.
public struct IgnoredSetting: Sendable, Hashable, CustomStringConvertible {
    /// What was tried, and where.
    public var setting: ConfigurationSetting
    /// The managed setting that wins: the key's own, or for a locked agent option the line that pins the agent.
    public var pinnedBy: ConfigurationSetting
    /// For a locked agent option (``AgentPin/lockedOptions``): the pin of its agent; `nil` when the key itself is pinned.
    public var agentPin: AgentPin? = nil

    public var description: String {
        if let agentPin {
            return "\(setting.key) = \(setting.value) from \(setting.origin) is ignored: "
                + agentPin.refusal(of: setting.key.components.last ?? "")
        }
        return "\(setting.key) = \(setting.value) from \(setting.origin) is ignored: the key is pinned to "
            + "\(pinnedBy.value) by \(pinnedBy.origin)"
    }
}

/// A problem that does not stop the configuration from loading (an unknown key, a refused file).
public struct ConfigurationWarning: Sendable, Hashable, CustomStringConvertible {
    /// Where, when known.
    public var origin: ConfigurationOrigin?
    /// What, and what to do.
    public var message: String

    /// A warning about what `origin` names (when known), saying what and what to do.
    public init(origin: ConfigurationOrigin?, message: String) {
        self.origin = origin
        self.message = message
    }

    public var description: String {
        guard let origin else { return message }
        return origin.layer == .environment || origin.layer == .code || origin.layer == .defaults
            ? "\(origin): \(message)" : "\(origin.location): \(message)"
    }
}
