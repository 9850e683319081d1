// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif
import ExternalUserAgentRules

/// The configuration in effect: every layer merged, with where each value came from.
///
/// Layers, weakest first: built-in defaults < system files < user file < environment < code.
/// The managed file pins every key it sets; other layers' values for those keys are kept in
/// ``ignored``. Read it with ``load(sources:code:)``; a broken file throws `configurationInvalid`
/// with `file:line`, the key and what was expected.
public struct Configuration: Sendable {
    /// The value in effect for each key that any layer sets, and where it came from.
    public private(set) var settings: [ConfigurationKey: ConfigurationSetting] = [:]
    /// Values that lost to a managed pin.
    public private(set) var ignored: [IgnoredSetting] = []
    /// The agents the managed file pins, by the name it uses (an id or a family), each with its locked options.
    public private(set) var agentPins: [String: AgentPin] = [:]
    /// Every file considered, weakest layer first, and what became of it.
    public private(set) var files: [ConfigurationFileStatus] = []
    /// Unknown keys, refused files, variables that could not be used.
    public private(set) var warnings: [ConfigurationWarning] = []
    /// The agent named explicitly in code (`--agent`), if any; see ``CodeConfiguration/namedAgent``.
    public var namedAgent: String?

    /// The settings ExternalUserAgent starts from.
    public static let defaults: [ConfigurationSetting] = {
        let origin = ConfigurationOrigin(layer: .defaults, source: "built-in")
        return [
            ConfigurationSetting(key: .preference, value: .list([.string("*")]), origin: origin),
            ConfigurationSetting(key: .allowTestAgents, value: .bool(false), origin: origin),
            ConfigurationSetting(key: .allow, value: .list([]), origin: origin),
            ConfigurationSetting(key: .deny, value: .list([]), origin: origin),
        ]
    }()

    /// Merges `layers` (settings of any layers, in any order); `files` and `warnings` are kept for the report.
    public init(
        settings layers: [ConfigurationSetting], files: [ConfigurationFileStatus] = [],
        warnings: [ConfigurationWarning] = []
    ) {
        self.files = files
        self.warnings = warnings
        let ordered = layers.enumerated().sorted {
            ($0.element.origin.layer, $0.offset) < ($1.element.origin.layer, $1.offset)
        }.map(\.element)
        agentPins = AgentPin.pins(ordered)
        let managedKeys = Set(ordered.filter { $0.origin.layer == .managed }.map(\.key))
        for setting in ordered {
            if setting.origin.layer != .managed, setting.key.agentOptionAgent != nil,
                setting.key.components[2] == ConfigurationSchema.userOptions
            {
                self.warnings.append(
                    ConfigurationWarning(
                        origin: setting.origin,
                        message: "\(setting.key) is ignored: only the managed file says which locked agent options "
                            + "users may set"))
                continue
            }
            if !managedKeys.contains(setting.key), let locked = Self.lockedOutSetting(setting, pins: agentPins) {
                ignored.append(locked)
                continue
            }
            if let current = settings[setting.key], current.origin.layer == .managed {
                if setting.origin.layer == .managed { settings[setting.key] = setting }
                continue
            }
            settings[setting.key] = setting
        }
        for setting in ordered where setting.origin.layer != .managed && setting.origin.layer != .defaults {
            if let pin = settings[setting.key], pin.origin.layer == .managed, pin.value != setting.value {
                ignored.append(IgnoredSetting(setting: setting, pinnedBy: pin))
            }
        }
        if let port = settings[.receiverPort], let range = settings[.receiverPortRange] {
            self.warnings.append(
                ConfigurationWarning(
                    origin: port.origin,
                    message: "receiver.port (\(port.origin)) and receiver.port-range (\(range.origin)) are both set; "
                        + "the fixed port is used"))
        }
        if let uri = settings[.loginRedirectURI] {
            for key in [ConfigurationKey.receiverPath, .receiverPort, .receiverPortRange] {
                guard let other = settings[key] else { continue }
                if key != .receiverPath, !Self.hasPort(uri.value) { continue }
                self.warnings.append(
                    ConfigurationWarning(
                        origin: other.origin,
                        message: "\(key) (\(other.origin)) is ignored: login.redirect-uri (\(uri.origin)) sets the "
                            + (key == .receiverPath ? "path" : "port")))
            }
        }
    }

    /// The ignored setting `setting` is when it sets a locked option of an agent the managed file pins
    /// (``AgentPin``) from another layer; `nil` when it may take effect.
    private static func lockedOutSetting(_ setting: ConfigurationSetting, pins: [String: AgentPin]) -> IgnoredSetting? {
        guard setting.origin.layer != .managed, setting.origin.layer != .defaults,
            let agent = setting.key.agentOptionAgent, let pin = pins[agent],
            pin.locks(setting.key.components[2])
        else { return nil }
        return IgnoredSetting(setting: setting, pinnedBy: pin.pinnedBy, agentPin: pin)
    }

    /// Whether a `login.redirect-uri` value names a port.
    private static func hasPort(_ value: ConfigurationValue) -> Bool {
        guard let text = value.stringValue, let uri = try? LoopbackRedirectURI(parsing: text) else { return false }
        return uri.port != nil
    }

    /// Reads every layer from `sources`, with `code` as the code layer.
    ///
    /// A missing file is fine. A system file that another user could change is refused, with a warning
    /// (see ``ConfigurationFileStatus/Status/refused(_:)``). Throws `configurationInvalid` for a managed file
    /// that exists but cannot be read or trusted (a policy that cannot be applied fails closed), a file over
    /// 1 MiB or not UTF-8, a file that is not valid TOML, and a key set to a wrong value.
    public static func load(
        sources: ConfigurationSources = .standard(),
        code: CodeConfiguration = CodeConfiguration()
    ) throws(ExternalUserAgentError) -> Configuration {
        try load(sources: sources, code: code, user: geteuid())
    }

    /// ``load(sources:code:)``, trusting the files of `user` (and root) for the system and managed layers.
    static func load(
        sources: ConfigurationSources, code: CodeConfiguration,
        user: uid_t
    ) throws(ExternalUserAgentError) -> Configuration {
        var settings = defaults
        var files: [ConfigurationFileStatus] = []
        var warnings: [ConfigurationWarning] = []
        func read(_ path: String, _ layer: ConfigurationLayer) throws(ExternalUserAgentError) {
            let (status, bytes) = try ConfigurationFileReader.read(path, layer: layer, user: user)
            files.append(ConfigurationFileStatus(path: path, layer: layer, status: status))
            if case .refused(let why) = status {
                warnings.append(
                    ConfigurationWarning(
                        origin: ConfigurationOrigin(layer: layer, source: path), message: "not read: \(why)"))
            }
            guard let bytes else { return }
            let file = try ConfigurationFile(bytes: bytes, path: path, layer: layer)
            settings += file.settings
            warnings += file.warnings
        }
        for path in sources.systemFiles { try read(path, .system) }
        if let user = sources.userFile { try read(user, .user) }
        let environment = try EnvironmentLayer.settings(sources.environment)
        settings += environment.settings
        warnings += environment.warnings
        settings += try code.settings()
        if let managed = sources.managedFile { try read(managed, .managed) }
        var configuration = Configuration(settings: settings, files: files, warnings: warnings)
        configuration.namedAgent = code.namedAgent
        return configuration
    }

    /// The setting in effect for `key`, if any layer sets it.
    public subscript(key: ConfigurationKey) -> ConfigurationSetting? { settings[key] }

    /// Agent ids in order of preference; `*` stands for every agent not named.
    public var preference: [String] { settings[.preference]?.value.stringList ?? ["*"] }

    /// The order a sign-in tries its ways in: `browser` (a browser agent), `device` (the device
    /// authorization grant, when the server offers it), `manual` (the manual agent). Default: all three, in that order.
    public var flowOrder: [String] { settings[.flowOrder]?.value.stringList ?? ConfigurationSchema.flowSteps }

    /// Whether `testDouble` agents may be selected.
    public var allowTestAgents: Bool { settings[.allowTestAgents]?.value.boolValue ?? false }

    /// When non-empty, only agents matching one of these may be selected.
    public var allow: [AgentMatcher] { matchers(.allow) }

    /// Agents matching one of these may not be selected.
    public var deny: [AgentMatcher] { matchers(.deny) }

    /// Options for the agent `id` (`profile`, `private`, …), as strings, each from its strongest layer (for an agent
    /// the managed file pins, its locked options from the managed file only).
    public func options(for id: String) -> [String: String] {
        optionSettings(table: id).mapValues(\.value.optionText)
    }

    /// Options for `agent`: its family's table (`[agent-options.firefox]` for firefox-esr), then its own id's
    /// table over it, option by option. When the managed file pins the agent by its id or its family, the locked
    /// options (``AgentPin/lockedOptions``) come from the managed file only, in either table; see ``lockedOut(for:)``.
    public func options(for agent: AgentDescriptor) -> [String: String] {
        agentOptionSettings(for: agent).options.mapValues(\.value.optionText)
    }

    /// The pin that applies to `agent`: the managed file's for its id, else for its family.
    public func pin(for agent: AgentDescriptor) -> AgentPin? {
        agentPins[agent.id] ?? agent.family.flatMap { agentPins[$0] }
    }

    /// The settings of `agent`'s options that a pin keeps from it: those ``ignored`` lists for its id's or family's
    /// table, and those of the other table (a family pinned, `[agent-options.firefox-esr] executable` set) that
    /// ``options(for:)-(AgentDescriptor)`` leaves out.
    public func lockedOut(for agent: AgentDescriptor) -> [IgnoredSetting] {
        agentOptionSettings(for: agent).lockedOut
    }

    /// Options of the table `name` (`agent-options.<name>`), without `user-options`.
    private func optionSettings(table name: String) -> [String: ConfigurationSetting] {
        var options: [String: ConfigurationSetting] = [:]
        for (key, setting) in settings
        where key.agentOptionAgent == name && key.components[2] != ConfigurationSchema.userOptions {
            options[key.components[2]] = setting
        }
        return options
    }

    private func agentOptionSettings(for agent: AgentDescriptor)
        -> (options: [String: ConfigurationSetting], lockedOut: [IgnoredSetting])
    {
        let tables = [agent.family, agent.id].compactMap { $0 }
        var lockedOut = ignored.filter { entry in
            entry.agentPin != nil && tables.contains { entry.setting.key.agentOptionAgent == $0 }
        }
        var options: [String: ConfigurationSetting] = [:]
        let pin = pin(for: agent)
        for table in tables {
            for (option, setting) in optionSettings(table: table) {
                if let pin, setting.origin.layer != .managed, pin.locks(option) {
                    lockedOut.append(IgnoredSetting(setting: setting, pinnedBy: pin.pinnedBy, agentPin: pin))
                    continue
                }
                options[option] = setting
            }
        }
        return (options, lockedOut)
    }

    /// `given` (options for `agent` from outside the configuration, like `eua login --agent-option` without
    /// `--agent`) without the options a managed pin locks; `refused` says which were left out, and why.
    public func permitted(_ given: [String: String], for agent: AgentDescriptor) -> (
        options: [String: String], refused: [String]
    ) {
        guard let pin = pin(for: agent) else { return (given, []) }
        var options = given
        var refused: [String] = []
        for (option, value) in given.sorted(by: { $0.key < $1.key }) where pin.locks(option) {
            options[option] = nil
            refused.append("the agent option \(option)=\(value) is ignored: \(pin.refusal(of: option))")
        }
        return (options, refused)
    }

    /// The redirect receiver's options (`port`, `port-range`, `path`) for the loopback receiver plugin.
    ///
    /// With `login.redirect-uri`, that URI is the `redirect-uri` option: it replaces `path`, and the port
    /// options too when it has a port (``warnings`` say so).
    public var receiverOptions: [String: String] {
        var options: [String: String] = [:]
        options["port"] = settings[.receiverPort]?.value.optionText
        options["port-range"] = settings[.receiverPortRange]?.value.optionText
        options["path"] = settings[.receiverPath]?.value.optionText
        if let uri = settings[.loginRedirectURI] {
            options["redirect-uri"] = uri.value.optionText
            options["path"] = nil
            if Self.hasPort(uri.value) {
                options["port"] = nil
                options["port-range"] = nil
            }
        }
        return options
    }

    /// `login.redirect-uri`, when a layer sets it.
    public var redirectURI: String? { settings[.loginRedirectURI]?.value.stringValue }

    /// `logout.post-logout-redirect-uri`, when a layer sets it.
    public var postLogoutRedirectURI: String? { settings[.logoutPostLogoutRedirectURI]?.value.stringValue }
    /// How `eua logout` sends the end-session request to `issuer` (``ConfigurationKey/logoutEndSession(issuer:)``);
    /// `nil` when not set (the default, `client-id`).
    public func endSession(issuer: String) -> String? { settings[.logoutEndSession(issuer: issuer)]?.value.stringValue }
    /// `storage.backend` (`"secret-service"` or `"file"`), when a layer sets it.
    public var storageBackend: String? { settings[.storageBackend]?.value.stringValue }

    /// How long a sign-in may take, when a layer sets it.
    public var authorizationTimeout: Duration? { duration(.authorizationTimeout) }

    /// How long an agent may take to close, when a layer sets it.
    public var dismissTimeout: Duration? { duration(.dismissTimeout) }

    /// How long an agent may take to show a URL (`eua open`), when a layer sets it.
    public var presentTimeout: Duration? { duration(.presentTimeout) }

    /// The page (file path or URL) shown after a successful redirect, when a layer sets it.
    public var successPage: String? { settings[.successPage]?.value.stringValue }

    /// The page (file path or URL) shown after a failed redirect, when a layer sets it.
    public var failurePage: String? { settings[.failurePage]?.value.stringValue }

    private func matchers(_ key: ConfigurationKey) -> [AgentMatcher] {
        (settings[key]?.value.stringList ?? []).compactMap { try? AgentMatcher(parsing: $0) }
    }

    private func duration(_ key: ConfigurationKey) -> Duration? {
        settings[key]?.value.secondsValue.map { .milliseconds(Int64(($0 * 1000).rounded())) }
    }
}
