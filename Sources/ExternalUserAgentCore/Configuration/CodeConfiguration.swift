// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// The code layer: what the app (or `eua --agent …`) sets; stronger than files and environment,
/// weaker than the managed file. Every property left `nil` (or empty) leaves the weaker layers' value.
public struct CodeConfiguration: Sendable, Hashable {
    /// Agent ids in order of preference; add `"*"` to allow any other agent after them.
    public var preference: [String]?
    /// An agent the person named explicitly (`eua --agent ID`): it becomes the whole preference, and it
    /// is used even where its plugin says it cannot run here (rule 4) or a non-managed allow/deny list
    /// leaves it out (rule 3) — but never past rules 1–2 or the managed file.
    public var namedAgent: String?
    /// Allows `testDouble` agents (unless the managed file forbids them).
    public var allowTestAgents: Bool?
    /// When non-empty, only matching agents may be selected.
    public var allow: [AgentMatcher]?
    /// Agents that may not be selected.
    public var deny: [AgentMatcher]?
    /// Options per agent id (`["firefox": ["profile": "work"]]`).
    public var agentOptions: [String: [String: String]]
    /// `[receiver] port`: the loopback port to listen on.
    public var receiverPort: Int?
    /// `[receiver] port-range`: loopback ports to try.
    public var receiverPortRange: ClosedRange<Int>?
    /// `[receiver] path`: the redirect URI's path.
    public var receiverPath: String?
    /// `[timeouts] authorization`: how long a sign-in may take.
    public var authorizationTimeout: Duration?
    /// `[timeouts] dismiss`: how long an agent may take to close.
    public var dismissTimeout: Duration?
    /// `[pages] success`: the page shown after a good redirect (a path or URL).
    public var successPage: String?
    /// `[pages] failure`: the page shown after a failed redirect (a path or URL).
    public var failurePage: String?
    /// The order of the sign-in steps (`browser`, `device`, `manual`); see ``Configuration/flowOrder``.
    public var flowOrder: [String]?
    /// How messages name where a value came from, by the key's first part (`preference`, `agent-options`,
    /// `allow-test-agents`); a key not listed is from `code`. A command line names its flags here, so that a reason
    /// reads "the preference order [firefox] from <its flag> on the command line" rather than "from code".
    public var sources: [String: String] = [:]

    /// The code layer; every `nil` leaves the key to the other layers.
    public init(
        preference: [String]? = nil, allowTestAgents: Bool? = nil, allow: [AgentMatcher]? = nil,
        deny: [AgentMatcher]? = nil, agentOptions: [String: [String: String]] = [:],
        receiverPort: Int? = nil, receiverPortRange: ClosedRange<Int>? = nil, receiverPath: String? = nil,
        authorizationTimeout: Duration? = nil, dismissTimeout: Duration? = nil,
        successPage: String? = nil, failurePage: String? = nil, flowOrder: [String]? = nil
    ) {
        self.preference = preference
        self.allowTestAgents = allowTestAgents
        self.allow = allow
        self.deny = deny
        self.agentOptions = agentOptions
        self.receiverPort = receiverPort
        self.receiverPortRange = receiverPortRange
        self.receiverPath = receiverPath
        self.authorizationTimeout = authorizationTimeout
        self.dismissTimeout = dismissTimeout
        self.successPage = successPage
        self.failurePage = failurePage
        self.flowOrder = flowOrder
    }

    /// Names `agent` explicitly, as `eua --agent ID` does: it becomes the whole ``preference`` and the
    /// ``namedAgent``, with `options`, when there are any, as its options in this layer.
    public mutating func name(_ agent: String, options: [String: String] = [:]) {
        preference = [agent]
        namedAgent = agent
        if !options.isEmpty { agentOptions = [agent: options] }
    }

    /// The settings this value makes, checked like a file's. Throws `configurationInvalid` naming the key.
    func settings() throws(ExternalUserAgentError) -> [ConfigurationSetting] {
        var values: [(ConfigurationKey, ConfigurationValue)] = []
        func seconds(_ duration: Duration) -> ConfigurationValue {
            let (whole, fraction) = duration.components
            return fraction == 0 ? .integer(Int(whole)) : .number(Double(whole) + Double(fraction) / 1e18)
        }
        if let preference { values.append((.preference, .list(preference.map(ConfigurationValue.string)))) }
        if let allowTestAgents { values.append((.allowTestAgents, .bool(allowTestAgents))) }
        if let flowOrder { values.append((.flowOrder, .list(flowOrder.map(ConfigurationValue.string)))) }
        if let allow { values.append((.allow, .list(allow.map { .string($0.description) }))) }
        if let deny { values.append((.deny, .list(deny.map { .string($0.description) }))) }
        for (agent, options) in agentOptions.sorted(by: { $0.key < $1.key }) {
            for (name, value) in options.sorted(by: { $0.key < $1.key }) {
                let key = ConfigurationKey.agentOption(agent, name)
                let shape = ConfigurationSchema.shape(of: key)
                values.append(
                    (
                        key,
                        shape == .bool && (value == "true" || value == "false")
                            ? .bool(value == "true") : .string(value)
                    ))
            }
        }
        if let receiverPort { values.append((.receiverPort, .integer(receiverPort))) }
        if let receiverPortRange {
            values.append(
                (.receiverPortRange, .string("\(receiverPortRange.lowerBound)-\(receiverPortRange.upperBound)")))
        }
        if let receiverPath { values.append((.receiverPath, .string(receiverPath))) }
        if let authorizationTimeout { values.append((.authorizationTimeout, seconds(authorizationTimeout))) }
        if let dismissTimeout { values.append((.dismissTimeout, seconds(dismissTimeout))) }
        if let successPage { values.append((.successPage, .string(successPage))) }
        if let failurePage { values.append((.failurePage, .string(failurePage))) }

        var settings: [ConfigurationSetting] = []
        for (key, value) in values {
            let origin = ConfigurationOrigin(layer: .code, source: sources[key.components[0]] ?? "code")
            if let shape = ConfigurationSchema.shape(of: key),
                let problem = ConfigurationSchema.problem(with: value, for: shape)
            {
                throw ExternalUserAgentError(
                    .configurationInvalid, "code: key '\(key)': expected \(shape.expectation); \(problem)")
            }
            settings.append(ConfigurationSetting(key: key, value: value, origin: origin))
        }
        return settings
    }
}
