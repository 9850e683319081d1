// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore
import ExternalUserAgentRules
import Logging
import Synchronization

/// A whole sign-in from the issuer's name to an ``AuthState``: the one flow `eua login`, `eua demo` and
/// apps call.
///
/// Discovery → the way in (``SignInChain``: browser, device or manual; a named agent or a forced step)
/// → the redirect receiver with its options → the agent → response checks → token exchange → ID token
/// validation → the state saved (when ``file`` is set). ``hooks`` tell a user interface what to show.
///
/// ```swift
/// let catalog = await PluginLoader().load()
/// var flow = SignInFlow(issuer: "https://id.example.com", client: ClientCredentials(clientID: "my-app"),
///                       candidates: AgentSelection.candidates(catalog: catalog),
///                       configuration: try Configuration.load(), receiver: .plugin(in: catalog))
/// flow.hooks.stepChosen = { step in print("Signing in: \(step.reason)") }
/// let state = try await flow.run()
/// ```
public struct SignInFlow: Sendable {
    /// The issuer identifier (`https://id.example.com`) whose metadata ``run()`` reads first.
    public var issuer: String
    /// The client to sign in as; a defaulted authentication method is chosen from the server's metadata.
    public var client: ClientCredentials
    /// The scopes to ask for; with `openid` (the default) any ID token is checked, and the code flow must bring one.
    public var scopes: [String]
    /// Extra authorization parameters (`prompt`, `login_hint`…); they cannot replace the security ones.
    public var additionalParameters: [(name: String, value: String)]
    /// The typed request parameters and free extras (``AuthorizationParameters``), checked before any network
    /// traffic; empty unless set. A property left unset here is taken from the configuration's `[login]` table
    /// (`prompt`, `login-hint`, `max-age`, `acr-values`, `ui-locales`, `resource`).
    public var parameters = AuthorizationParameters()
    /// Push the authorization request when the server offers it (RFC 9126, ``SignIn/usesPushedAuthorization``);
    /// `nil`: the configuration's `login.par`, else `true`.
    public var usesPushedAuthorization: Bool?
    /// Ask for DPoP-bound tokens (RFC 9449, ``SignIn/usesDPoP``); `nil`: the configuration's `login.dpop`, else `false`.
    public var usesDPoP: Bool?
    /// How long the whole sign-in may take, from discovery to the last token and key fetched (every request
    /// to the server ends by then too); `nil`: the configuration's `timeouts.authorization`, else 300 s
    /// (``effectiveTimeout``).
    public var timeout: Duration?
    /// Where to save the resulting state, if anywhere.
    public var file: AuthStateFile?
    /// The agents the chain may choose from (`AgentSelection.candidates(catalog:registered:)`).
    public var candidates: [AgentCandidate]
    /// The rules of the choice: preference, allow/deny, test agents, `flow-order`, a named agent
    /// (`Configuration.namedAgent`), the agents' and the receiver's options.
    public var configuration: Configuration
    /// One step forced (`eua login --flow device`), or `nil` for the chain.
    public var forcedStep: SignInStep?
    /// Options for the chosen agent, over the configuration's.
    public var agentOptions: [String: String]
    /// Where the redirect comes back (browser and manual steps).
    public var receiver: Receiver
    /// The receiver's options (`port`, `port-range`, `path`) over the configuration's; a `port` or a
    /// `port-range` given here replaces both of the configuration's.
    public var receiverOptions: [String: String]
    /// The loopback redirect URI as registered with the provider (`http://127.0.0.1/callback`,
    /// `http://[::1]:8400/cb`, `http://localhost/cb`), over the configuration's `login.redirect-uri`: the
    /// receiver listens at its host and path, on its port when it has one (a `port` or `port-range` option
    /// too is then `invalidOptions`), else on the `port`/`port-range` option's or any free port. The same
    /// text (with that port) is the `redirect_uri` of the authorization and token requests.
    public var redirectURI: String?
    /// What a user interface hears as the sign-in goes.
    public var hooks: Hooks
    private let http: OAuthHTTP
    private let logger: Logger
    /// The issuer's metadata being read ahead (``startDiscovery(priority:)``).
    private var discoveryAhead: DiscoveryAhead?

    /// A sign-in of `client` at `issuer`, choosing from `candidates` by the rules of `configuration`, with the redirect
    /// coming back to `receiver`: scope `openid` unless given; the timeout, redirect URI and receiver options
    /// not given here come from the configuration (``effectiveTimeout``, ``effectiveRedirectURI``,
    /// ``effectiveReceiverOptions``).
    public init(
        issuer: String, client: ClientCredentials, scopes: [String] = ["openid"],
        additionalParameters: [(name: String, value: String)] = [], timeout: Duration? = nil,
        file: AuthStateFile? = nil, candidates: [AgentCandidate], configuration: Configuration,
        forcedStep: SignInStep? = nil, agentOptions: [String: String] = [:], receiver: Receiver,
        receiverOptions: [String: String] = [:], redirectURI: String? = nil, hooks: Hooks = Hooks(),
        http: OAuthHTTP = OAuthHTTP(),
        logger: Logger = Logger(label: "eua.oauth")
    ) {
        self.issuer = issuer
        self.client = client
        self.scopes = scopes
        self.additionalParameters = additionalParameters
        self.timeout = timeout
        self.file = file
        self.candidates = candidates
        self.configuration = configuration
        self.forcedStep = forcedStep
        self.agentOptions = agentOptions
        self.receiver = receiver
        self.receiverOptions = receiverOptions
        self.redirectURI = redirectURI
        self.hooks = hooks
        self.http = http
        self.logger = logger
    }

    /// Starts reading ``issuer``'s metadata now, so that it runs while the app does other work (loading its
    /// plugins, say) and the next ``run()`` waits for it instead of starting it; the sign-in's
    /// ``effectiveTimeout`` then counts from here. Set ``issuer``, ``timeout`` and ``configuration`` first:
    /// ``run()`` reads the metadata anew if ``issuer`` changed since, and a later ``run()`` always does. A
    /// failed read is thrown by ``run()`` after its own checks (a named agent that cannot be used is still
    /// refused first). Throws, and starts nothing, when a check of ``run()`` that needs no plugin and no server
    /// fails: the client's ID token algorithm, the request parameters, the receiver options. The read runs as a
    /// task of `priority` (by default the caller's, as `Task` gives it).
    public mutating func startDiscovery(priority: TaskPriority? = nil) throws {
        discoveryAhead?.cancel()
        _ = try checkedLocally()
        let deadline = ContinuousClock.now + effectiveTimeout
        var http = self.http
        http.deadline = deadline
        let (discovery, issuer) = (Discovery(http: http, logger: logger), issuer)
        discoveryAhead = DiscoveryAhead(
            issuer: issuer, deadline: deadline,
            task: Task(priority: priority) { try await discovery.configuration(issuer: issuer) })
    }

    /// ``timeout``, else the configuration's `timeouts.authorization`, else 300 s.
    public var effectiveTimeout: Duration { timeout ?? configuration.authorizationTimeout ?? .seconds(300) }

    /// The redirect URI the receiver is given: ``redirectURI``, else the configuration's `login.redirect-uri`.
    public var effectiveRedirectURI: String? {
        redirectURI ?? receiverOptions["redirect-uri"] ?? configuration.redirectURI
    }

    /// The options the receiver is made with: the configuration's, with ``receiverOptions`` over them, and
    /// ``redirectURI`` over both (it replaces `path`).
    public var effectiveReceiverOptions: [String: String] {
        var options = configuration.receiverOptions
        if receiverOptions["port"] != nil || receiverOptions["port-range"] != nil {
            options["port"] = nil
            options["port-range"] = nil
        }
        let given = redirectURI ?? receiverOptions["redirect-uri"]
        if given != nil || receiverOptions["path"] != nil {
            options["redirect-uri"] = nil
            options["path"] = nil
        }
        if let text = given ?? options["redirect-uri"], let uri = try? LoopbackRedirectURI(parsing: text),
            uri.port != nil
        {
            // A redirect URI that names its port outranks the configuration's port options.
            options["port"] = nil
            options["port-range"] = nil
        }
        options.merge(receiverOptions) { $1 }
        if let redirectURI { options["redirect-uri"] = redirectURI }
        return options
    }

    /// What ``run()`` checks before any request that needs neither a plugin nor the server: the client's ID token
    /// algorithm, the request parameters (with the configuration's `[login]` table) and the receiver options.
    func checkedLocally() throws -> (parameters: AuthorizationParameters, receiverOptions: [String: String]) {
        try client.idTokenAlgorithm?.check(for: client)
        let parameters = try LoginParameterSettings.merged(self.parameters, configuration)
        try parameters.validate()
        return (parameters, try checkedReceiverOptions())
    }

    /// ``effectiveReceiverOptions``, refused (`invalidOptions`) when they contradict each other: a redirect
    /// URI that names a port with a port option, a redirect URI with a path option, or a bad redirect URI.
    func checkedReceiverOptions() throws -> [String: String] {
        let options = effectiveReceiverOptions
        guard let text = options["redirect-uri"] else { return options }
        let source =
            redirectURI != nil || receiverOptions["redirect-uri"] != nil
            ? "the redirect URI"
            : "login.redirect-uri (\(configuration[.loginRedirectURI]?.origin.description ?? "configuration"))"
        if PrivateUseScheme.isPrivateUse(text) {
            do throws(PrivateUseScheme.RedirectURIProblem) {
                _ = try PrivateUseScheme.redirectURIParts(text)
            } catch {
                throw ExternalUserAgentError(.invalidOptions, "\(source) '\(text)' cannot be used: \(error)")
            }
            if let given = receiverOptions["port"] ?? receiverOptions["port-range"] ?? receiverOptions["path"] {
                throw ExternalUserAgentError(
                    .invalidOptions,
                    "\(source) \(text) is a private-use scheme URI, received by the scheme receiver: the loopback option "
                        + "\(given) has no meaning with it; give the redirect URI only")
            }
            return options
        }
        let uri: LoopbackRedirectURI
        do throws(LoopbackRedirectURI.Problem) {
            uri = try LoopbackRedirectURI(parsing: text)
        } catch {
            throw ExternalUserAgentError(.invalidOptions, "\(source) '\(text)' cannot be used: \(error)")
        }
        if let port = uri.port, let given = options["port"] ?? options["port-range"] {
            throw ExternalUserAgentError(
                .invalidOptions,
                "\(source) \(text) has the port \(port), and the port \(given) was given too: give one of them "
                    + "(the port must be the registered one when the registration names it)")
        }
        if let path = options["path"] {
            throw ExternalUserAgentError(
                .invalidOptions,
                "\(source) \(text) has its path, and the path \(path) was given too: give the redirect URI only")
        }
        return options
    }

    /// Runs the whole sign-in.
    ///
    /// A client that cannot use its registered ID token algorithm (`HS256` without a secret) is refused
    /// first (`invalidOptions`, ``IDTokenAlgorithm/check(for:)``).
    /// A named agent that cannot be used is refused before any network traffic (its selection report
    /// as `noAgentAvailable`; only the metadata read of ``startDiscovery(priority:)``, when called, may have gone out);
    /// a plan with no possible step throws ``SignInPlan/error``. Then what
    /// ``Discovery``, ``SignIn/run(agent:receiver:)`` and ``SignIn/runDevice(clock:show:onEvent:)`` throw.
    /// Cancelling the task cancels the sign-in (receiver closed, agent dismissed).
    public func run() async throws -> AuthState {
        let ahead = discoveryAhead?.take(for: issuer)
        // A read started ahead is not needed once the flow ends: it ended already, or the flow failed first.
        defer { ahead?.task.cancel() }
        let (parameters, receiverOptions) = try checkedLocally()
        let named = configuration.namedAgent != nil
        // A named agent does not depend on the server.
        if named, SignInChain.plan(candidates: candidates, configuration: configuration, service: nil).chosen == nil {
            throw AgentSelection.evaluate(candidates: candidates, configuration: configuration).error
        }
        // One deadline for everything: discovery, the person, the token exchange, keys and UserInfo.
        let deadline = ahead?.deadline ?? ContinuousClock.now + effectiveTimeout
        var http = self.http
        http.deadline = deadline
        let service =
            if let ahead {
                try await withTaskCancellationHandler {
                    try await ahead.task.value
                } onCancel: {
                    ahead.task.cancel()
                }
            } else {
                try await Discovery(http: http, logger: logger).configuration(issuer: issuer)
            }
        hooks.discovered(service)
        let plan = SignInChain.plan(
            candidates: candidates, configuration: configuration, service: service,
            forced: forcedStep)
        plan.report.log(to: logger)
        guard let step = plan.chosen else { throw named ? plan.report.error : plan.error }
        var signIn = SignIn(
            configuration: service, client: client, scopes: scopes,
            additionalParameters: additionalParameters,
            timeout: max(ContinuousClock.now.duration(to: deadline), .milliseconds(1)), file: file,
            http: http, logger: logger, progress: hooks.progress)
        signIn.redirectURI = receiverOptions["redirect-uri"]
        signIn.parameters = parameters
        if let uses = usesPushedAuthorization ?? LoginParameterSettings.flag(.loginPAR, configuration) {
            signIn.usesPushedAuthorization = uses
        }
        signIn.usesDPoP = usesDPoP ?? LoginParameterSettings.flag(.loginDPoP, configuration) ?? false
        let (receiver, options) = (self.receiver, receiverOptions)
        return try await signIn.run(
            chosen: step, of: plan, agentOptions: agentOptions,
            receiver: { try receiver.make(options) }, hooks: hooks)
    }
}

extension SignInFlow {
    /// What a user interface hears as the sign-in goes. Each hook runs on the sign-in's task and must
    /// return quickly. `progress` carries the code (`authorizationResponseAccepted`) and the tokens
    /// (`tokensReceived`): never print or log them.
    public struct Hooks: Sendable {
        /// The server's metadata was read.
        public var discovered: @Sendable (ServiceConfiguration) -> Void
        /// The way in was chosen (``SignInPlan/Step/step``, with ``SignInPlan/Step/reason``); called once
        /// its agent and receiver are made, just before it starts.
        public var stepChosen: @Sendable (SignInPlan.Step) -> Void
        /// The code flow's steps, and the ID token check and the saving for both grants.
        public var progress: (@Sendable (SignIn.Progress) -> Void)?
        /// The device grant's codes: tell the person where to enter them (``DeviceAuthorizationResponse/instructions``
        /// says it in a line). Without it, a sign-in whose chain chooses the device step fails with
        /// `invalidOptions`: the library writes nothing to a terminal, the app owns its output.
        public var deviceCodes: (@Sendable (DeviceAuthorizationResponse) -> Void)?
        /// Each answer of the device grant's polling that means "wait on" (pending, slow down).
        public var devicePoll: @Sendable (DeviceAuthorization.PollEvent) -> Void

        /// Hooks as given; one left out does nothing, except ``deviceCodes`` (see there).
        public init(
            discovered: @escaping @Sendable (ServiceConfiguration) -> Void = { _ in },
            stepChosen: @escaping @Sendable (SignInPlan.Step) -> Void = { _ in },
            progress: (@Sendable (SignIn.Progress) -> Void)? = nil,
            deviceCodes: (@Sendable (DeviceAuthorizationResponse) -> Void)? = nil,
            devicePoll: @escaping @Sendable (DeviceAuthorization.PollEvent) -> Void = { _ in }
        ) {
            self.discovered = discovered
            self.stepChosen = stepChosen
            self.progress = progress
            self.deviceCodes = deviceCodes
            self.devicePoll = devicePoll
        }
    }

    /// Where the redirect comes back: makes the receiver for one sign-in from the effective options.
    public struct Receiver: Sendable {
        let make: @Sendable ([String: String]) throws -> any RedirectReceiver

        /// A receiver made by `make` from the effective receiver options.
        public init(_ make: @escaping @Sendable (_ options: [String: String]) throws -> any RedirectReceiver) {
            self.make = make
        }

        /// The receiver `id` of `catalog`'s plugins. When no plugin offers it, a browser or manual step
        /// fails with `receiverFailed` saying where the plugin should be (the device step needs none).
        ///
        /// With a private-use scheme redirect URI (`redirect-uri=com.example.app:/cb`), the `loopback` receiver's
        /// place is taken by the `scheme` receiver (libEUAScheme.so), given that scheme and path; the loopback
        /// options (`port`, `port-range`) do not apply to it. Register the scheme first: `eua scheme register`.
        public static func plugin(_ id: String = "loopback", in catalog: PluginCatalog) -> Receiver {
            let loaded = catalog.receivers.map { "'\($0.id)'" }
            let (loopbackEntry, schemeEntry) = (catalog.receiver(id: id), catalog.receiver(id: "scheme"))
            return Receiver { options in
                var (id, entry, options) = (id, loopbackEntry, options)
                if id == "loopback", let text = options["redirect-uri"], PrivateUseScheme.isPrivateUse(text),
                    let parts = try? PrivateUseScheme.redirectURIParts(text)
                {
                    (id, entry, options) = ("scheme", schemeEntry, ["scheme": parts.scheme, "path": parts.path])
                }
                guard let entry else {
                    let file =
                        id == "loopback"
                        ? "libEUALoopback.so" : id == "scheme" ? "libEUAScheme.so" : "the plugin that offers it"
                    throw ExternalUserAgentError(
                        .receiverFailed,
                        "no '\(id)' redirect receiver was found"
                            + (loaded.isEmpty ? "" : " (the plugins offer \(loaded.joined(separator: ", ")))")
                            + "; is \(file) beside the program or on EUA_PLUGIN_PATH?", remedies: [.listAgents])
                }
                return entry.makeReceiver(options: options)
            }
        }
    }
}

/// The metadata read that ``SignInFlow/startDiscovery(priority:)`` started, for which issuer and under which deadline.
/// The first ``SignInFlow/run()`` takes it; a later run (or one for another issuer) reads the metadata anew.
private final class DiscoveryAhead: Sendable {
    private let issuer: String
    private let deadline: ContinuousClock.Instant
    private let task: Mutex<Task<ServiceConfiguration, any Error>?>

    init(issuer: String, deadline: ContinuousClock.Instant, task: Task<ServiceConfiguration, any Error>) {
        (self.issuer, self.deadline) = (issuer, deadline)
        self.task = Mutex(task)
    }

    /// The read and its deadline when it was started for `issuer` and not taken yet; a read for another
    /// issuer is cancelled.
    func take(for issuer: String) -> (task: Task<ServiceConfiguration, any Error>, deadline: ContinuousClock.Instant)? {
        let task = self.task.withLock { task in
            defer { task = nil }
            return task
        }
        guard let task else { return nil }
        guard issuer == self.issuer else {
            task.cancel()
            return nil
        }
        return (task, deadline)
    }

    /// Cancels the read unless it was taken.
    func cancel() {
        task.withLock { task in
            task?.cancel()
            task = nil
        }
    }
}
