// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
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
    /// The post-logout redirect URI registered with the provider, for `eua logout` (loopback or private-use scheme).
    public static let logoutPostLogoutRedirectURI = ConfigurationKey(["logout", "post-logout-redirect-uri"])
    /// How `eua logout` sends the end-session request to `issuer` (`logout.end-session."<issuer>"`): `"client-id"`
    /// (the default: a launched URL with `client_id`, never the ID token), `"hint-post"` or `"hint-get"` (the ID
    /// token as `id_token_hint` in a form the loopback receiver serves once, sent by POST or GET).
    public static func logoutEndSession(issuer: String) -> ConfigurationKey {
        ConfigurationKey(["logout", "end-session", issuer])
    }

    /// The `prompt` of a sign-in: `none`, `login`, `consent`, `select_account`, space-separated.
    public static let loginPrompt = ConfigurationKey(["login", "prompt"])
    /// The `login_hint` of a sign-in: the account the person will likely use.
    public static let loginHint = ConfigurationKey(["login", "login-hint"])
    /// The `max_age` of a sign-in, in whole seconds; the ID token's `auth_time` is then checked.
    public static let loginMaxAge = ConfigurationKey(["login", "max-age"])
    /// The `acr_values` of a sign-in, space-separated.
    public static let loginACRValues = ConfigurationKey(["login", "acr-values"])
    /// The `ui_locales` of a sign-in, space-separated BCP 47 tags.
    public static let loginUILocales = ConfigurationKey(["login", "ui-locales"])
    /// The RFC 8707 `resource` values of a sign-in: an array of absolute URIs.
    public static let loginResource = ConfigurationKey(["login", "resource"])
    /// Whether a sign-in pushes its authorization request (RFC 9126) when the server offers it; default true.
    public static let loginPAR = ConfigurationKey(["login", "par"])
    /// Whether a sign-in asks for DPoP-bound tokens (RFC 9449); default false.
    public static let loginDPoP = ConfigurationKey(["login", "dpop"])
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

    /// Whether sandboxed (Flatpak, Snap) apps may use the sign-in service (`signin.sandboxed-apps`, default true).
    public static let signinSandboxedApps = ConfigurationKey(["signin", "sandboxed-apps"])
    /// Whether unsandboxed apps may use the sign-in service (`signin.host-apps`, default true).
    public static let signinHostApps = ConfigurationKey(["signin", "host-apps"])
    /// The issuers the sign-in service signs in to (`signin.issuers`; absent: any).
    public static let signinIssuers = ConfigurationKey(["signin", "issuers"])

    /// The apps (as the sign-in service names them: a Flatpak id, `snap.<name>`, `host:<id>`, `host`) that alone may
    /// use `client` at `issuer` through the sign-in service (`signin.clients."<issuer>"."<client>"`).
    public static func signinClient(issuer: String, client: String) -> ConfigurationKey {
        ConfigurationKey(["signin", "clients", issuer, client])
    }

    /// The issuer and client id, when this is a sign-in service client binding.
    public var signinClientBinding: (issuer: String, client: String)? {
        components.count == 4 && components[0] == "signin" && components[1] == "clients"
            ? (components[2], components[3]) : nil
    }

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
