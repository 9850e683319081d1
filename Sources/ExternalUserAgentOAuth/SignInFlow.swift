import ExternalUserAgent
import Logging

/// A whole sign-in from the issuer's name to an ``AuthState``: the one flow `eua login`, `eua demo` and
/// apps call.
///
/// Discovery → the way in (``SignInChain``: browser, device or manual; a named agent or a forced step)
/// → the redirect receiver with its options → the agent → response checks → token exchange → ID token
/// validation → the state saved (when ``file`` is set). ``hooks`` tell a user interface what to show.
///
/// ```swift
/// let catalog = PluginLoader().load()
/// var flow = SignInFlow(issuer: "https://id.example.com", client: ClientCredentials(clientID: "my-app"),
///                       candidates: AgentSelection.candidates(catalog: catalog),
///                       configuration: try Configuration.load(), receiver: .plugin(in: catalog))
/// flow.hooks.stepChosen = { step in print("Signing in: \(step.reason)") }
/// let state = try await flow.run()
/// ```
public struct SignInFlow: Sendable {
    public var issuer: String
    public var client: ClientCredentials
    public var scopes: [String]
    /// Extra authorization parameters (`prompt`, `login_hint`…); they cannot replace the security ones.
    public var additionalParameters: [(name: String, value: String)]
    /// How long the person may take; `nil`: the configuration's `timeouts.authorization`, else 300 s
    /// (``effectiveTimeout``).
    public var timeout: Duration?
    /// Where to save the resulting state, if anywhere.
    public var file: AuthStateFile?
    /// The agents the chain may choose from (``AgentSelection/candidates(catalog:registered:)``).
    public var candidates: [AgentCandidate]
    /// The rules of the choice: preference, allow/deny, test agents, `flow-order`, a named agent
    /// (``Configuration/namedAgent``), the agents' and the receiver's options.
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
    /// What a user interface hears as the sign-in goes.
    public var hooks: Hooks
    private let http: OAuthHTTP
    private let logger: Logger

    public init(issuer: String, client: ClientCredentials, scopes: [String] = ["openid"],
                additionalParameters: [(name: String, value: String)] = [], timeout: Duration? = nil,
                file: AuthStateFile? = nil, candidates: [AgentCandidate], configuration: Configuration,
                forcedStep: SignInStep? = nil, agentOptions: [String: String] = [:], receiver: Receiver,
                receiverOptions: [String: String] = [:], hooks: Hooks = Hooks(), http: OAuthHTTP = OAuthHTTP(),
                logger: Logger = Logger(label: "eua.oauth")) {
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
        self.hooks = hooks
        self.http = http
        self.logger = logger
    }

    /// ``timeout``, else the configuration's `timeouts.authorization`, else 300 s.
    public var effectiveTimeout: Duration { timeout ?? configuration.authorizationTimeout ?? .seconds(300) }

    /// The options the receiver is made with: the configuration's, with ``receiverOptions`` over them.
    public var effectiveReceiverOptions: [String: String] {
        var options = configuration.receiverOptions
        if receiverOptions["port"] != nil || receiverOptions["port-range"] != nil {
            options["port"] = nil
            options["port-range"] = nil
        }
        return options.merging(receiverOptions) { $1 }
    }

    /// Runs the whole sign-in.
    ///
    /// A client that cannot use its registered ID token algorithm (`HS256` without a secret) is refused
    /// first (`invalidOptions`, ``IDTokenAlgorithm/check(for:)``).
    /// A named agent that cannot be used is refused before any network traffic (its selection report
    /// as `noAgentAvailable`); a plan with no possible step throws ``SignInPlan/error``. Then what
    /// ``Discovery``, ``SignIn/run(agent:receiver:)`` and ``SignIn/runDevice(clock:show:onEvent:)`` throw.
    /// Cancelling the task cancels the sign-in (receiver closed, agent dismissed).
    public func run() async throws -> AuthState {
        try client.idTokenAlgorithm?.check(for: client)
        let named = configuration.namedAgent != nil
        // A named agent does not depend on the server.
        if named, SignInChain.plan(candidates: candidates, configuration: configuration, service: nil).chosen == nil {
            throw AgentSelection.evaluate(candidates: candidates, configuration: configuration).error
        }
        let service = try await Discovery(http: http, logger: logger).configuration(issuer: issuer)
        hooks.discovered(service)
        let plan = SignInChain.plan(candidates: candidates, configuration: configuration, service: service,
                                    forced: forcedStep)
        plan.report.log(to: logger)
        guard let step = plan.chosen else { throw named ? plan.report.error : plan.error }
        let signIn = SignIn(configuration: service, client: client, scopes: scopes,
                            additionalParameters: additionalParameters, timeout: effectiveTimeout, file: file,
                            http: http, logger: logger, progress: hooks.progress)
        let (receiver, options) = (self.receiver, effectiveReceiverOptions)
        return try await signIn.run(chosen: step, of: plan, agentOptions: agentOptions,
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
        /// The device grant's codes: tell the person where to enter them.
        public var deviceCodes: @Sendable (DeviceAuthorizationResponse) -> Void
        /// Each answer of the device grant's polling that means "wait on" (pending, slow down).
        public var devicePoll: @Sendable (DeviceAuthorization.PollEvent) -> Void

        public init(discovered: @escaping @Sendable (ServiceConfiguration) -> Void = { _ in },
                    stepChosen: @escaping @Sendable (SignInPlan.Step) -> Void = { _ in },
                    progress: (@Sendable (SignIn.Progress) -> Void)? = nil,
                    deviceCodes: @escaping @Sendable (DeviceAuthorizationResponse) -> Void = SignIn.showOnStandardError,
                    devicePoll: @escaping @Sendable (DeviceAuthorization.PollEvent) -> Void = { _ in }) {
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
        public static func plugin(_ id: String = "loopback", in catalog: PluginCatalog) -> Receiver {
            let entry = catalog.receiver(id: id)
            let loaded = catalog.receivers.map { "'\($0.id)'" }
            return Receiver { options in
                guard let entry else {
                    let file = id == "loopback" ? "libEUALoopback.so" : "the plugin that offers it"
                    throw ExternalUserAgentError(.receiverFailed,
                        "no '\(id)' redirect receiver was found"
                            + (loaded.isEmpty ? "" : " (the plugins offer \(loaded.joined(separator: ", ")))")
                            + "; is \(file) beside eua or on EUA_PLUGIN_PATH? (see 'eua agents')")
                }
                return entry.makeReceiver(options: options)
            }
        }
    }
}
