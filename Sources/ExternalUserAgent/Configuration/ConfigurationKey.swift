/// The name of one setting, as a path of TOML keys (`receiver.port`, `agent-options.firefox.profile`).
public struct ConfigurationKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The TOML keys from the top of the file down.
    public let components: [String]

    /// A key from its dotted parts (`["agent-options", "firefox", "profile"]`).
    public init(_ components: [String]) {
        self.components = components
    }

    /// The agent preference order: agent ids, and `*` for "then any other agent".
    public static let preference = ConfigurationKey(["preference"])
    /// Agents allowed (`firefox>=115`); when non-empty, every other agent is removed.
    public static let allow = ConfigurationKey(["allow"])
    /// Agents removed (`chromium <120`).
    public static let deny = ConfigurationKey(["deny"])
    /// Whether `testDouble` agents may be selected.
    public static let allowTestAgents = ConfigurationKey(["allow-test-agents"])
    /// The order in which a sign-in tries its ways: `browser`, `device` (RFC 8628), `manual`.
    public static let flowOrder = ConfigurationKey(["flow-order"])
    /// The loopback receiver's fixed port (0: any free port).
    public static let receiverPort = ConfigurationKey(["receiver", "port"])
    /// The loopback receiver's port range, `"LOW-HIGH"`.
    public static let receiverPortRange = ConfigurationKey(["receiver", "port-range"])
    /// The redirect URI's path.
    public static let receiverPath = ConfigurationKey(["receiver", "path"])
    /// The loopback redirect URI registered with the provider (`http://127.0.0.1/callback`); it sets the
    /// receiver's host and path, and its port when it has one.
    public static let loginRedirectURI = ConfigurationKey(["login", "redirect-uri"])
    /// Where tokens are saved: `"secret-service"` or `"file"` (unset: the Secret Service when one answers).
    public static let storageBackend = ConfigurationKey(["storage", "backend"])
    /// How long a sign-in may take, in seconds.
    public static let authorizationTimeout = ConfigurationKey(["timeouts", "authorization"])
    /// How long an agent may take to close, in seconds.
    public static let dismissTimeout = ConfigurationKey(["timeouts", "dismiss"])
    /// How long an agent may take to show a URL (`eua open`), in seconds.
    public static let presentTimeout = ConfigurationKey(["timeouts", "present"])
    /// The page shown after a successful redirect: an absolute file path or an http(s) URL.
    public static let successPage = ConfigurationKey(["pages", "success"])
    /// The page shown after a failed redirect: an absolute file path or an http(s) URL.
    public static let failurePage = ConfigurationKey(["pages", "failure"])

    /// One option of one agent (`agent-options.<agent>.<option>`).
    public static func agentOption(_ agent: String, _ option: String) -> ConfigurationKey {
        ConfigurationKey(["agent-options", agent, option])
    }

    /// The agent id, when this is an agent option.
    public var agentOptionAgent: String? {
        components.count == 3 && components[0] == "agent-options" ? components[1] : nil
    }

    /// The TOML dotted form; components that are not bare keys are quoted.
    public var description: String {
        components.map { part in
            part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") } && !part.isEmpty
                ? part : "\"\(part)\""
        }.joined(separator: ".")
    }

    public static func < (lhs: ConfigurationKey, rhs: ConfigurationKey) -> Bool {
        lhs.components.lexicographicallyPrecedes(rhs.components)
    }
}
