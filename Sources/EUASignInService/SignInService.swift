// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CGIO
import ExternalUserAgentCore
import ExternalUserAgentSystem
import ExternalUserAgentOAuth
import Synchronization

/// The service: `org.externaluseragent.SignIn1` at `/org/externaluseragent/SignIn`, the Request objects of its
/// sign-ins and sign-outs, and the caller bookkeeping (who each caller is, what it has in flight).
final class SignInService: Sendable {
    static let objectPath = "/org/externaluseragent/SignIn"

    let bus: Bus
    let registry = RequestRegistry()
    let store = AccountStore()
    let identification: CallerIdentification
    let tokens = TokenCache()
    /// What the caller's unique name was found to be (a unique name is never given to another connection).
    private let identities = Mutex<[String: AppIdentity]>([:])
    /// The plugins, loaded on the first sign-in.
    private let catalog = Mutex<PluginCatalog?>(nil)
    /// When the last call came (for the idle exit).
    let lastActivity = Mutex(ContinuousClock.now)

    init(bus: Bus, identification: CallerIdentification) {
        self.bus = bus
        self.identification = identification
    }

    /// Registers the main object and follows callers leaving the bus.
    func start() throws(ServiceError) {
        _ = try bus.register(
            path: Self.objectPath, interface: Introspection.interface(Introspection.signInInterface),
            handler: MainObject(service: self))
        bus.onNameLost { [self] name in callerLeft(name) }
    }

    /// Whether the service has nothing in flight.
    var isIdle: Bool { registry.count == 0 }

    // MARK: Calls

    /// The most calls of one caller being answered at once (its sign-ins and sign-outs in flight after their handle
    /// was answered are counted by ``RequestRegistry``).
    static let callsPerCaller = 16
    /// The calls being answered, by caller.
    private let callsInFlight = Mutex<[String: Int]>([:])

    func handle(_ call: MethodCall) {
        lastActivity.withLock { $0 = .now }
        let reply = Reply(call.invocation)
        let sender = call.sender
        let admitted = callsInFlight.withLock { calls in
            guard calls[sender, default: 0] < Self.callsPerCaller else { return false }
            calls[sender, default: 0] += 1
            return true
        }
        guard admitted else {
            return reply.error(
                .notAllowed(
                    "too many calls in flight from this app (at most \(Self.callsPerCaller)); "
                        + "wait for their answers before calling again"))
        }
        do throws(ServiceError) {
            switch call.method {
            case "SignIn":
                let arguments = try CallArguments.signIn(call.parameters)
                Task {
                    await signIn(arguments, sender: sender, reply: reply)
                    answered(sender)
                }
            case "GetAccessToken":
                let arguments = try CallArguments.getAccessToken(call.parameters)
                Task {
                    await accessToken(arguments, sender: sender, reply: reply)
                    answered(sender)
                }
            case "ListAccounts":
                try CallArguments.listAccounts(call.parameters)
                Task {
                    await listAccounts(sender: sender, reply: reply)
                    answered(sender)
                }
            case "SignOut":
                let arguments = try CallArguments.signOut(call.parameters)
                Task {
                    await signOut(arguments, sender: sender, reply: reply)
                    answered(sender)
                }
            default:
                throw .invalidArgument("the method \(call.method) is not known here")
            }
        } catch {
            answered(sender)
            reply.error(error)
        }
    }

    /// One call of `sender` was answered.
    private func answered(_ sender: String) {
        callsInFlight.withLock { calls in
            let left = calls[sender, default: 1] - 1
            calls[sender] = left > 0 ? left : nil
        }
    }

    /// Who `sender` is, from the bus's credentials and the sandbox's files; refused when the policy keeps it out.
    func caller(_ sender: String, policy: SignInPolicy? = nil) async throws(ServiceError) -> AppIdentity {
        let identity: AppIdentity
        if let known = identities.withLock({ $0[sender] }) {
            identity = known
        } else {
            let credentials = try await bus.callBus(
                "GetConnectionCredentials", Variant.tuple([Variant.string(sender)]),
                replyType: "(a{sv})")
            let dictionary = Variant.child(credentials, 0)
            let entries = Variant.entries(of: dictionary)
            let pid = entries.first { $0.key == "ProcessID" }?.value.uint32
            let uid = entries.first { $0.key == "UnixUserID" }?.value.uint32
            g_variant_unref(dictionary)
            g_variant_unref(credentials)
            guard uid == getuid() else {
                throw .notAllowed(
                    "the caller runs as another user (uid \(uid.map(String.init) ?? "unknown")); the service "
                        + "serves its own user's apps only")
            }
            // Off the cooperative pool: a snap's identity waits on `snap routine portal-info` (its own deadline).
            let found: Result<AppIdentity, CallerIdentification.Failure>
            do {
                found = try await BlockingCall<Result<AppIdentity, CallerIdentification.Failure>>.run {
                    [identification] in
                    Result { () throws(CallerIdentification.Failure) in try identification.identify(pid: pid ?? 0) }
                }
            } catch {
                throw .failed("the caller could not be identified: \(error); try again")
            }
            switch found {
            case .success(let value): identity = value
            case .failure(let error): throw .notAllowed("the caller could not be identified: \(error.reason)")
            }
            identities.withLock { $0[sender] = identity }
        }
        if let policy {
            try policy.checkCaller(identity)
        } else {
            try SignInPolicy(configuration: try loadConfiguration()).checkCaller(identity)
        }
        return identity
    }

    /// How long a configuration read is used before the files are read again: a change applies within this time,
    /// and a burst of calls reads them once.
    static let configurationFreshness = Duration.seconds(2)
    private let configuration = Mutex<(read: ContinuousClock.Instant, value: Configuration)?>(nil)

    /// The host's configuration (system, user and managed layers, the environment), read again when older than
    /// ``configurationFreshness``.
    func loadConfiguration() throws(ServiceError) -> Configuration {
        let now = ContinuousClock.now
        if let cached = configuration.withLock({ $0 }), now - cached.read < Self.configurationFreshness {
            return cached.value
        }
        let value: Configuration
        do {
            value = try Configuration.load()
        } catch {
            throw .failed(
                "the host's configuration could not be read: \(Self.describe(error)); fix it (see 'eua explain')")
        }
        configuration.withLock { $0 = (now, value) }
        return value
    }

    private func callerLeft(_ name: String) {
        identities.withLock { _ = $0.removeValue(forKey: name) }
        let ended = registry.endAll(of: name)
        if !ended.isEmpty { Log.info("\(ended.count) request(s) of \(name) cancelled: their caller left the bus") }
        for entry in ended {
            entry.task?.cancel()
            if entry.registration != 0 { bus.unregister(entry.registration) }
        }
    }

    // MARK: SignIn

    private func signIn(_ arguments: CallArguments.SignIn, sender: String, reply: Reply) async {
        let app: String
        let configuration: Configuration
        do throws(ServiceError) {
            configuration = try loadConfiguration()
            let policy = SignInPolicy(configuration: configuration)
            let identity = try await caller(sender, policy: policy)
            app = identity.appID
            try policy.checkClient(issuer: arguments.issuer, clientID: arguments.clientID, app: app)
            // A keyring that cannot take the tokens fails the call before the browser opens.
            try await Blocking.run { [store] () throws(ServiceError) in try store.checkReady() }
            if let account = arguments.account,
                try await Blocking.run({ [store] () throws(ServiceError) in
                    try store.state(app: app, account: account)
                }) == nil
            {
                throw .notFound(account)
            }
        } catch {
            reply.error(error)
            return
        }
        guard let path = openRequest(sender: sender, handleToken: arguments.handleToken, reply: reply) else { return }
        registry.attach(
            path,
            task: Task {
                await runSignIn(arguments, app: app, configuration: configuration, sender: sender, path: path)
            })
    }

    /// Opens the Request object of a sign-in or sign-out of `sender` (its path from `handleToken`, or a random one)
    /// and answers the call with its handle, before the work starts, so that the reply comes before the `Response`.
    /// `nil` when it could not (too many in flight, a handle in use, the caller gone): the call was answered with the
    /// error.
    private func openRequest(sender: String, handleToken: String?, reply: Reply) -> String? {
        let path = RequestRegistry.path(sender: sender, token: handleToken ?? Self.randomToken())
        let registration: UInt32
        do throws(ServiceError) {
            try registry.reserve(path, sender: sender)
            do throws(ServiceError) {
                registration = try bus.register(
                    path: path, interface: Introspection.interface(Introspection.requestInterface),
                    handler: RequestObject(service: self, path: path))
            } catch {
                _ = registry.end(path)
                throw error
            }
        } catch {
            reply.error(error)
            return nil
        }
        guard registry.attach(path, registration: registration) else {
            bus.unregister(registration)
            reply.error(.failed("the caller left the bus"))
            return nil
        }
        reply.value(Variant.tuple([Variant.objectPath(path)]))
        return path
    }

    private func runSignIn(
        _ arguments: CallArguments.SignIn, app: String, configuration: Configuration, sender: String,
        path: String
    ) async {
        do {
            let catalog = await plugins()
            var configuration = configuration
            if let agent = arguments.agent { configuration.namedAgent = agent }
            var flow = SignInFlow(
                issuer: arguments.issuer,
                client: ClientCredentials(
                    clientID: arguments.clientID, authenticationMethod: ClientCredentials.AuthenticationMethod.none),
                scopes: arguments.scopes,
                timeout: arguments.timeout.map { .seconds(Int($0)) },
                candidates: Self.isolated(AgentSelection.candidates(catalog: catalog)),
                configuration: configuration, receiver: .plugin(in: catalog))
            flow.parameters = AuthorizationParameters(
                prompt: arguments.prompt.flatMap(Prompt.init(rawValue:)).map { [$0] } ?? [],
                loginHint: arguments.loginHint, maxAge: arguments.maxAge.map(Int.init),
                resources: arguments.resources)
            let state = try await flow.run()
            let claims = await state.idTokenClaims
            let identity = await state.identity
            let granted = await state.lastTokenResponse?.scope
            let summary = AccountStore.Summary(
                account: arguments.account ?? Self.randomToken(), issuer: arguments.issuer, client: arguments.clientID,
                subject: claims?.subject ?? identity?.subject ?? "",
                displayName: claims?.displayName ?? identity?.preferredUsername ?? identity?.email ?? identity?.subject
                    ?? "",
                scopes: granted.map { $0.split(separator: " ").map(String.init) } ?? arguments.scopes)
            let text = try await state.storedText()
            try Task.checkCancellation()
            try await Blocking.run { [store] () throws(ServiceError) in
                try store.store(app: app, summary: summary, state: text)
            }
            await tokens.remove(app: app, account: summary.account)
            await tokens.put(state, app: app, account: summary.account)
            respond(
                path: path, sender: sender, code: 0,
                [
                    ("account", Variant.string(summary.account)), ("issuer", Variant.string(summary.issuer)),
                    ("subject", Variant.string(summary.subject)), ("display_name", Variant.string(summary.displayName)),
                    ("scopes", Variant.strings(summary.scopes)),
                ])
        } catch let error as ExternalUserAgentError where error.code == .userCanceled {
            respond(path: path, sender: sender, code: 1, [])
        } catch is CancellationError {
            respond(path: path, sender: sender, code: 1, [])
        } catch let error as ExternalUserAgentError where error.code == .programCanceled {
            respond(path: path, sender: sender, code: 1, [])
        } catch let error as ServiceError {
            respond(
                path: path, sender: sender, code: 2,
                [
                    ("error", Variant.string(error.name)),
                    ("error_description", Variant.string(error.message)),
                ])
        } catch {
            let code = (error as? ExternalUserAgentError).map { "\($0.code)" } ?? "failed"
            var results = [
                ("error", Variant.string(code)), ("error_description", Variant.string(Self.describe(error))),
            ]
            if let oauthError = Self.oauthError(in: error) {
                results.append(("oauth_error", Variant.string(oauthError)))
            }
            respond(path: path, sender: sender, code: 2, results)
        }
    }

    /// The provider's own OAuth `error` code behind `error` (`access_denied`, `invalid_client`…), when it answered
    /// with one: the C library gives it to the app as `eua_error.oauth_error`.
    static func oauthError(in error: any Error) -> String? {
        var cause: (any Error)? = error
        while let current = cause {
            if let response = current as? OAuthErrorResponse { return response.error }
            cause = (current as? ExternalUserAgentError)?.underlying
        }
        return nil
    }

    /// Sends `Response` to the request's sender only, and removes the request, unless it ended already (closed, or
    /// its caller left: no `Response` is owed then).
    func respond(path: String, sender: String, code: UInt32, _ results: [(String, OpaquePointer)]) {
        guard let entry = registry.end(path) else {
            for (_, value) in results { g_variant_unref(g_variant_ref_sink(value)) }
            return
        }
        bus.emit(
            to: sender, path: path, interface: Introspection.requestInterface, signal: "Response",
            Variant.tuple([Variant.uint32(code), Variant.dictionary(results)]))
        bus.unregister(entry.registration)
    }

    /// `Close()` on a request: only its sender may; the work is cancelled and no `Response` follows.
    func close(path: String, sender: String) throws(ServiceError) {
        guard registry.sender(of: path) == sender else {
            throw .notAllowed("only the caller that made this request may close it")
        }
        guard let entry = registry.end(path) else { return }
        entry.task?.cancel()
        bus.unregister(entry.registration)
    }

    // MARK: GetAccessToken, ListAccounts

    private func accessToken(
        _ arguments: (account: String, minValid: UInt32, idToken: Bool), sender: String, reply: Reply
    ) async {
        do throws(ServiceError) {
            let app = try await caller(sender).appID
            let state = try await account(arguments.account, app: app)
            let before = await state.lastTokenResponse?.accessToken
            let fresh: TokenResponse
            do {
                fresh = try await state.freshTokens(minimumValidity: .seconds(Int(arguments.minValid)))
            } catch let error as ExternalUserAgentError where error.code == .notAuthorized || error.code == .oauthError
            {
                throw .interactionRequired(
                    "the provider refused to refresh this account's token (\(error.message)); sign in "
                        + "again with SignIn and options.account '\(arguments.account)'")
            } catch {
                throw .failed("the token could not be refreshed: \(Self.describe(error)); try again later")
            }
            if fresh.accessToken != before {
                let text: String
                do { text = try await state.storedText() } catch {
                    throw .failed("the refreshed state could not be written: \(Self.describe(error))")
                }
                let summaries = try await Blocking.run { [store] () throws(ServiceError) in try store.accounts(app: app)
                }
                if let summary = summaries.first(where: { $0.account == arguments.account }) {
                    try await Blocking.run { [store] () throws(ServiceError) in
                        try store.store(app: app, summary: summary, state: text)
                    }
                }
            }
            var extra: [(String, OpaquePointer)] = [("token_type", Variant.string(fresh.tokenType))]
            if let scope = fresh.scope {
                extra.append(("scopes", Variant.strings(scope.split(separator: " ").map(String.init))))
            }
            if arguments.idToken, let idToken = fresh.idToken { extra.append(("id_token", Variant.string(idToken))) }
            let expiry = fresh.accessTokenExpirationDate.map { Int64($0.timeIntervalSince1970) } ?? 0
            reply.value(
                Variant.tuple([Variant.string(fresh.accessToken), Variant.int64(expiry), Variant.dictionary(extra)]))
        } catch {
            reply.error(error)
        }
    }

    /// `app`'s account `id`, from memory or the keyring; `NotFound` when `app` has none by that id.
    private func account(_ id: String, app: String) async throws(ServiceError) -> AuthState {
        guard CallArguments.isToken(id) else { throw .notFound(id) }
        if let state = await tokens.get(app: app, account: id) { return state }
        guard
            let text = try await Blocking.run({ [store] () throws(ServiceError) in
                try store.state(app: app, account: id)
            })
        else {
            // A locked keyring gives no secret either: say so rather than NotFound.
            try await Blocking.run { [store] () throws(ServiceError) in try store.checkReady() }
            throw .notFound(id)
        }
        let state: AuthState
        do {
            state = try AuthState.restored(fromStoredText: text, place: "the keyring item of account \(id)")
        } catch {
            throw .failed(
                "the keyring item of this account is not readable (\(Self.describe(error))); sign out and sign in again"
            )
        }
        return await tokens.put(state, app: app, account: id)
    }

    private func listAccounts(sender: String, reply: Reply) async {
        do throws(ServiceError) {
            let app = try await caller(sender).appID
            let accounts = try await Blocking.run { [store] () throws(ServiceError) in try store.accounts(app: app) }
            reply.value(
                Variant.tuple([
                    Variant.array(
                        of: "a{sv}",
                        accounts.map { summary in
                            Variant.dictionary([
                                ("account", Variant.string(summary.account)),
                                ("issuer", Variant.string(summary.issuer)),
                                ("subject", Variant.string(summary.subject)),
                                ("display_name", Variant.string(summary.displayName)),
                                ("scopes", Variant.strings(summary.scopes)),
                            ])
                        })
                ]))
        } catch {
            reply.error(error)
        }
    }

    // MARK: SignOut

    private func signOut(_ arguments: CallArguments.SignOut, sender: String, reply: Reply) async {
        let app: String
        let state: AuthState
        do throws(ServiceError) {
            app = try await caller(sender).appID
            state = try await account(arguments.account, app: app)
        } catch {
            reply.error(error)
            return
        }
        guard let path = openRequest(sender: sender, handleToken: arguments.handleToken, reply: reply) else { return }
        registry.attach(
            path,
            task: Task { [store, tokens] in
                do throws(ServiceError) {
                    var signOut = SignOut(state: state, timeout: .seconds(120))
                    signOut.revokesTokens = arguments.revoke
                    signOut.endsSession = arguments.endSession
                    let agent = arguments.endSession ? try await endSessionAgent(for: state) : nil
                    let outcome: SignOut.Outcome
                    do {
                        outcome = try await signOut.run(agent: agent, receiver: nil)
                    } catch {
                        // Cancelled (Close, or the caller left): the account stays.
                        throw .failed("the sign-out was cancelled; the account was kept")
                    }
                    try await Blocking.run { () throws(ServiceError) in
                        try store.remove(app: app, account: arguments.account)
                    }
                    await tokens.remove(app: app, account: arguments.account)
                    respond(
                        path: path, sender: sender, code: 0,
                        [
                            ("revoked", Variant.strings(outcome.revoked.map(\.rawValue))),
                            ("end_session", Variant.string(Self.describe(outcome.endSession))),
                        ])
                } catch {
                    respond(
                        path: path, sender: sender, code: 2,
                        [
                            ("error", Variant.string(error.name)),
                            ("error_description", Variant.string(error.message)),
                        ])
                }
            })
    }

    /// The agent that shows the provider's end-session page: chosen by the host's configuration as for a sign-in
    /// (the browser step only).
    private func endSessionAgent(for state: AuthState) async throws(ServiceError) -> any ExternalUserAgent {
        var provider = state.configuration
        provider.deviceAuthorizationEndpoint = nil
        let plan = SignInChain.plan(
            candidates: Self.isolated(AgentSelection.candidates(catalog: await plugins())),
            configuration: try loadConfiguration(), service: provider)
        guard let step = plan.chosen, let candidate = step.agent else {
            throw .failed(
                "no agent can show the provider's sign-out page (\(plan.error.message)); sign out without "
                    + "end_session, or ask the administrator to allow a browser agent")
        }
        return candidate.makeAgent(options: step.options)
    }

    /// What became of the provider's browser session, as one word.
    static func describe(_ endSession: SignOut.EndSession) -> String {
        switch endSession {
        case .notRequested: "not-requested"
        case .notSupported: "not-supported"
        case .completed: "completed"
        case .sent: "sent"
        case .failed: "failed"
        }
    }

    // MARK: Helpers

    /// The plugins beside the service, on `EUA_PLUGIN_PATH` and in the installed folder, loaded once: each tried
    /// first in a child (``PluginCheck``), and one whose loading crashed it refused.
    private func plugins() async -> PluginCatalog {
        if let loaded = catalog.withLock({ $0 }) { return loaded }
        let load: @Sendable () -> PluginCatalog = {
            let loader = PluginLoader()
            let files = loader.candidateFiles()
            let crashed = PluginCheck.crashing(files)
            var catalog = PluginCatalog()
            for file in files {
                if let signal = crashed[file] {
                    catalog.failures.append(
                        PluginLoadFailure(
                            path: file,
                            error: ExternalUserAgentError(
                                .pluginNotLoadable,
                                "the plugin crashed (\(signal)) while it was loaded; report it to its author, "
                                    + "or remove it from the plugin path")))
                } else {
                    loader.load(file: file, into: &catalog)
                }
            }
            return catalog
        }
        let loaded = (try? await BlockingCall.run(name: "eua-plugin-load", load)) ?? load()
        catalog.withLock { $0 = $0 ?? loaded }
        return catalog.withLock { $0! }
    }

    /// `candidates` whose plugin agents each run in a child process of their own (``IsolatedAgent``).
    static func isolated(_ candidates: [AgentCandidate]) -> [AgentCandidate] {
        candidates.map { candidate in
            var candidate = candidate
            candidate.pluginAgentMaker = { entry, options in IsolatedAgent(entry: entry, options: options) }
            return candidate
        }
    }

    /// 128 random bits as 32 hexadecimal digits: an account id or a handle token.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let text = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - text.count) + text
        }.joined()
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? ExternalUserAgentError { return error.message }
        if let error = error as? ServiceError { return error.message }
        return "\(error)"
    }
}

extension Task where Success == Never, Failure == Never {
    /// Throws `error` when the current task is cancelled.
    static func checkCancellation(or error: ServiceError) throws(ServiceError) {
        if Task.isCancelled { throw error }
    }
}

/// The main object's calls and its `version` property.
final class MainObject: ObjectHandler, @unchecked Sendable {
    let service: SignInService
    init(service: SignInService) { self.service = service }

    override func method(_ call: MethodCall) { service.handle(call) }

    override func property(_ name: String) -> OpaquePointer? {
        name == "version" ? g_variant_new_uint32(1) : nil
    }
}

/// A Request object: `Close()` from its sender.
final class RequestObject: ObjectHandler, @unchecked Sendable {
    let service: SignInService
    let path: String
    init(service: SignInService, path: String) { (self.service, self.path) = (service, path) }

    override func method(_ call: MethodCall) {
        let reply = Reply(call.invocation)
        guard call.method == "Close" else { return reply.error(.invalidArgument("a request has only Close()")) }
        do throws(ServiceError) {
            try service.close(path: path, sender: call.sender)
            reply.value(Variant.tuple([]))
        } catch {
            reply.error(error)
        }
    }
}
