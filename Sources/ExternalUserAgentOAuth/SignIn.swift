// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore
import ExternalUserAgentRules
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A sign-in with a known server and agent: receiver → request → agent → response checks → token
/// exchange → ID token validation → ``AuthState`` (saved when given a file). ``SignInFlow`` is the whole
/// sign-in, from discovery and the choice of the way in; it runs this.
///
/// ```swift
/// let configuration = try await Discovery().configuration(issuer: "https://id.example.com")
/// let signIn = SignIn(configuration: configuration, client: ClientCredentials(clientID: "my-app"),
///                     scopes: ["openid", "email"])
/// let state = try await signIn.run(agent: agent, receiver: receiver)
/// let tokens = try await state.freshTokens()
/// ```
public struct SignIn: Sendable {
    /// A step of a sign-in, reported as it happens, for a caller that shows progress (`eua demo`).
    public enum Progress: Sendable {
        /// The receiver listens; the request is built for this redirect URI.
        case receiverStarted(redirectURI: URL)
        /// The authorization request was pushed (RFC 9126); the agent gets only `client_id` and a `request_uri`
        /// good for `expiresIn` seconds.
        case authorizationRequestPushed(expiresIn: Int)
        /// The agent has shown (or handed off) the authorization URL.
        case presented(agent: AgentDescriptor)
        /// The callback passed the checks: `state`, and `iss` when the server sent one.
        case authorizationResponseAccepted(AuthorizationResponse)
        /// The code and the PKCE verifier were exchanged for tokens.
        case tokensReceived(TokenResponse)
        /// The ID token's signature (made with `algorithm`, by key `keyID`) and claims passed validation.
        case idTokenValidated(IDTokenClaims, algorithm: String, keyID: String?)
        /// The state was saved to the file.
        case saved(AuthStateFile)
        /// A request to the redirect URI was turned away (wrong `state`, path, malformed…) and the
        /// sign-in goes on waiting; `reason` is fixed text, never request data.
        case callbackRefused(reason: String)
    }

    /// The server's endpoints, from ``Discovery`` or built by hand.
    public var configuration: ServiceConfiguration
    /// The client to sign in as; a defaulted authentication method is first chosen from ``configuration``
    /// (``ClientCredentials/negotiated(with:)``).
    public var client: ClientCredentials
    /// The scopes to ask for; with `openid` the code flow sends a nonce and must get an ID token back.
    public var scopes: [String]
    /// Extra authorization parameters (`prompt`, `login_hint`…); they cannot replace the security ones.
    public var additionalParameters: [(name: String, value: String)]
    /// The typed request parameters (`prompt`, `max_age`, `resource`…) and the free extras for the authorization
    /// and token requests, with the ID token checks they bring (``AuthorizationParameters``); empty unless set.
    public var parameters = AuthorizationParameters()
    /// Push the authorization request (RFC 9126) when the server advertises a
    /// `pushed_authorization_request_endpoint` (the default). A push the server refuses (an OAuth error, or a 4xx but
    /// 404, 405, 408 and 429) ends the sign-in with its answer, no agent shown; one that fails otherwise falls back to
    /// the plain request, unless the server requires pushing (`require_pushed_authorization_requests`), when it ends
    /// the sign-in. Off with a server that requires it: `invalidOptions` before anything starts.
    public var usesPushedAuthorization = true
    /// Ask for DPoP-bound tokens (RFC 9449): a new ES256 key for this sign-in, its thumbprint sent as `dpop_jkt`,
    /// proofs on the token requests, `token_type` `DPoP` required, and the key kept in the ``AuthState`` for
    /// refreshes. Off by default (Bearer tokens). The device grant refuses it (`invalidOptions`).
    public var usesDPoP = false
    /// How long to wait for the person to finish in the browser.
    public var timeout: Duration?
    /// The redirect URI registered with the provider — loopback (`http://127.0.0.1/callback`) or a private-use
    /// scheme one (`com.example.app:/cb`, which the receiver must give exactly) — when the receiver must use it: a receiver that listens elsewhere (another host or path, or another port when
    /// it names one) is refused before the agent is shown anything (`invalidOptions`). Give the same URI to
    /// the loopback receiver as its `redirect-uri` option; ``SignInFlow`` does both.
    public var redirectURI: String?
    /// Where to save the resulting state, if anywhere.
    public var file: AuthStateFile?
    /// Called with each step as it completes, on whatever task runs the sign-in; it must return quickly.
    public var progress: (@Sendable (Progress) -> Void)?
    private let http: OAuthHTTP
    private let logger: Logger

    /// A sign-in of `client` at `configuration`: scope `openid`, 300 s for the person to finish, no extra
    /// parameters, no file and no progress reports unless given. ``redirectURI`` starts `nil`: set it after.
    public init(
        configuration: ServiceConfiguration, client: ClientCredentials, scopes: [String] = ["openid"],
        additionalParameters: [(name: String, value: String)] = [], timeout: Duration? = .seconds(300),
        file: AuthStateFile? = nil, http: OAuthHTTP = OAuthHTTP(), logger: Logger = Logger(label: "eua.oauth"),
        progress: (@Sendable (Progress) -> Void)? = nil
    ) {
        self.configuration = configuration
        self.client = client
        self.scopes = scopes
        self.additionalParameters = additionalParameters
        self.timeout = timeout
        self.file = file
        self.http = http
        self.logger = logger
        self.progress = progress
    }

    /// Runs the flow with `agent` showing the authorization URL and `receiver` catching the redirect.
    ///
    /// Throws `ExternalUserAgentError`: the session's codes (`userCanceled`,
    /// `timedOut`…; a callback with a wrong `state` is turned away and the flow waits on, so it ends as
    /// `timedOut` when the right one never comes), `issuerMismatch`, `oauthError`, `tokenRequestFailed`,
    /// `idTokenInvalid` (also for an ID token that fails the checks of ``parameters``), `stateFileInvalid`, and
    /// `invalidOptions` for ``parameters`` that ``AuthorizationParameters/validate()`` refuses, before anything starts.
    public func run(agent: any ExternalUserAgent, receiver: any RedirectReceiver) async throws -> AuthState {
        try parameters.validate()
        let pushes = try pushDecision()
        // The state is made first and given to the session (and so to the receiver): a request with a
        // wrong `state` is answered 400 and the flow waits on for the right one until its deadline, so a
        // stray request — or a web page trying ports — never ends a sign-in.
        let expectedState = SecureRandom.token(bits: 256)
        let report = progress ?? { _ in }
        let reporting = progress.map { ReportingAgent(inner: agent, report: $0) }
        let sessionAgent: any ExternalUserAgent = if let reporting { reporting } else { agent }
        let logger = self.logger
        let session = ExternalUserAgentSession(
            agent: sessionAgent, receiver: receiver,
            configuration: .init(expectedState: expectedState, timeout: timeout) { reason in
                logger.info(
                    "a request to the redirect URI was turned away; still waiting", metadata: ["why": "\(reason)"])
                report(.callbackRefused(reason: reason))
            })
        let requestBox = RequestBox()
        let client = try self.client.negotiated(with: configuration)
        if client.usesSecret { _ = try client.requiredSecret() }
        let (configuration, scopes, registered) = (self.configuration, self.scopes, redirectURI)
        if parameters.maxAge != nil || !parameters.acrValues.isEmpty, !scopes.contains("openid") {
            // Without an ID token there is no auth_time or acr to check: the request would go unverified.
            throw ExternalUserAgentError(
                .invalidOptions,
                "max_age and acr_values are checked against the ID token, which only the 'openid' scope brings; "
                    + "add openid to the scopes, or leave them out")
        }
        if let clash = additionalParameters.first(where: { extra in
            AuthorizationParameters.reservedAuthorizationParameters.subtracting(AuthorizationRequest.reservedParameters)
                .contains(extra.name) || parameters.extraAuthorizationParameters.contains { $0.name == extra.name }
        }) {
            throw ExternalUserAgentError(
                .invalidOptions,
                "the additional authorization parameter '\(clash.name)' is one the sign-in sets itself or is given "
                    + "twice; set it once, through SignIn.parameters")
        }
        let dpopKey = usesDPoP ? DPoPKey() : nil
        let extra =
            additionalParameters + parameters.authorizationFields
            + (dpopKey.map { [("dpop_jkt", $0.thumbprint)] } ?? [])
        logger.info(
            "starting sign-in",
            metadata: [
                "issuer": "\(configuration.issuer)", "client_id": "\(client.clientID)",
                "agent": "\(agent.descriptor.id)", "receiver": "\(receiver.id)",
            ])
        // The provider's keys are fetched while the person signs in: the ID token is then checked without
        // another round trip (a fetch that fails is done again, and reported, when the keys are needed).
        let keys = JWKSCache(jwksURI: configuration.jwksURI, http: http, logger: logger)
        let keysAhead =
            scopes.contains("openid") && client.idTokenAlgorithm.map { !$0.isSymmetric && !$0.isNone } ?? true
            ? await keys.prefetch() : nil
        defer { keysAhead?.cancel() }
        let callback = try await session.run { redirectURI in
            if let registered { try Self.check(redirectURI, registered: registered) }
            report(.receiverStarted(redirectURI: redirectURI))
            let request = try AuthorizationRequest(
                configuration: configuration, clientID: client.clientID, scopes: scopes,
                redirectURI: redirectURI, additionalParameters: extra,
                state: expectedState)
            requestBox.set(request)
            let url = try client.signsRequestObjects ? RequestObject.url(for: request, client: client) : request.url
            guard pushes else { return url }
            return try await pushed(url, client: client, http: http, logger: logger) {
                report(.authorizationRequestPushed(expiresIn: $0))
            }
        }
        reporting?.reportPresented()
        guard let request = requestBox.get() else {
            throw ExternalUserAgentError(.invalidOptions, "the sign-in ended before its request was made")
        }
        let response = try AuthorizationResponse(callbackURL: callback, request: request)
        logger.debug(
            "authorization response accepted",
            metadata: ["iss_present": "\(response.issuer != nil)", "refused_before": "\(session.refusedCount)"])
        report(.authorizationResponseAccepted(response))

        var endpoint = TokenEndpoint(configuration: configuration, client: client, http: http, logger: logger)
        endpoint.dpopKey = dpopKey
        let tokens = try await endpoint.exchange(response, for: request, additionalParameters: parameters.tokenFields)
        report(.tokensReceived(tokens))
        return try await finish(
            tokens: tokens, client: client, authorization: response, nonce: request.nonce,
            dpopKey: dpopKey, keys: keys)
    }

    /// Signs in with the device authorization grant (RFC 8628): asks for a user code, hands it to
    /// `show` (which tells the person where to enter it), then polls until they approve.
    ///
    /// The tokens get the same checks as the code flow (ID token signature, `iss`, `aud`, expiry; no
    /// `nonce`, which this grant does not carry) and become an ``AuthState``. Throws what
    /// ``DeviceAuthorization`` throws, and `idTokenInvalid`, `stateFileInvalid`.
    public func runDevice<C: Clock>(
        clock: C = ContinuousClock(),
        show: @Sendable (DeviceAuthorizationResponse) -> Void,
        onEvent: @Sendable (DeviceAuthorization.PollEvent) -> Void = { _ in }
    )
        async throws -> AuthState where C.Duration == Duration
    {
        if usesDPoP {
            throw ExternalUserAgentError(
                .invalidOptions,
                "DPoP-bound tokens are asked for in the code flow only; sign in with a browser or the manual agent, "
                    + "or without DPoP", remedies: [.useCodeFlow, .withoutDPoP])
        }
        if !parameters.isEmpty {
            // The device authorization request (RFC 8628 §3.1) carries none of them: sending nothing and checking
            // nothing (max_age, acr) would be accepting a sign-in that did not meet them.
            throw ExternalUserAgentError(
                .invalidOptions,
                "the request parameters (prompt, login_hint, max_age, acr_values, ui_locales, resource, extra parameters) "
                    + "are sent in the code flow only; sign in with a browser or the manual agent, or without them",
                remedies: [.useCodeFlow])
        }
        let client = try self.client.negotiated(with: configuration)
        if client.usesSecret { _ = try client.requiredSecret() }
        let device = DeviceAuthorization(
            configuration: configuration, client: client, scopes: scopes, timeout: timeout,
            http: http, logger: logger, clock: clock)
        logger.info(
            "starting device sign-in",
            metadata: [
                "issuer": "\(configuration.issuer)", "client_id": "\(client.clientID)",
            ])
        let codes = try await device.request()
        show(codes)
        let tokens = try await device.poll(codes, onEvent: onEvent)
        return try await finish(tokens: tokens, client: client, authorization: nil, nonce: nil)
    }

    /// Signs in the way `plan` chose (``SignInChain``): the code flow with the plan's agent and a
    /// receiver from `receiver`, or the device grant. ``SignInFlow`` does the whole sign-in, discovery
    /// and planning included.
    ///
    /// ```swift
    /// let plan = SignInChain.plan(candidates: AgentSelection.candidates(catalog: catalog),
    ///                             configuration: try Configuration.load(), service: configuration)
    /// let state = try await signIn.run(plan: plan) { catalog.receiver(id: "loopback")!.makeReceiver(options: [:]) }
    /// ```
    /// `show` tells the person the device grant's codes; without it, a plan that chose the device step fails with
    /// `invalidOptions`. Throws the plan's `noAgentAvailable` error when no step was possible.
    public func run(
        plan: SignInPlan, agentOptions: [String: String] = [:],
        receiver: @Sendable () throws -> any RedirectReceiver,
        show: (@Sendable (DeviceAuthorizationResponse) -> Void)? = nil
    ) async throws -> AuthState {
        guard let step = plan.chosen else { throw plan.error }
        return try await run(
            chosen: step, of: plan, agentOptions: agentOptions, receiver: receiver,
            hooks: SignInFlow.Hooks(deviceCodes: show))
    }

    /// Runs `step`, the chosen one of `plan`: the device grant, or the code flow with the step's agent
    /// (`agentOptions` over the step's) and a receiver from `receiver`. `hooks.stepChosen` hears of it
    /// once the agent and receiver are made.
    func run(
        chosen step: SignInPlan.Step, of plan: SignInPlan, agentOptions: [String: String],
        receiver: () throws -> any RedirectReceiver, hooks: SignInFlow.Hooks
    ) async throws -> AuthState {
        logger.info(
            "sign-in step chosen",
            metadata: [
                "step": "\(step.step)", "agent": "\(step.agent?.descriptor.id ?? "-")", "why": "\(step.reason)",
            ])
        switch step.step {
        case .device:
            guard let show = hooks.deviceCodes else {
                throw ExternalUserAgentError(
                    .invalidOptions,
                    "the device authorization grant was chosen (\(step.reason)), and the app gives no way to show its "
                        + "codes to the person: set SignInFlow.Hooks.deviceCodes, or leave the device step out of "
                        + "flow-order in the configuration")
            }
            hooks.stepChosen(step)
            return try await runDevice(show: show, onEvent: hooks.devicePoll)
        case .browser, .manual:
            guard let candidate = step.agent else { throw plan.error }
            let receiver = try receiver()
            // Options from outside the configuration cannot change what a managed pin locks (the program that runs).
            let given = plan.report.configuration.permitted(agentOptions, for: candidate.descriptor)
            for refusal in given.refused { logger.warning("\(refusal)") }
            let agent = candidate.makeAgent(options: step.options.merging(given.options) { $1 })
            hooks.stepChosen(step)
            return try await run(agent: agent, receiver: receiver)
        }
    }

    /// Throws `invalidOptions` unless `redirectURI` (what the receiver listens at) is `registered`, with the
    /// receiver's port put in when `registered` has none.
    static func check(_ redirectURI: URL, registered: String) throws {
        if PrivateUseScheme.isPrivateUse(registered) {
            guard redirectURI.absoluteString == registered else {
                throw ExternalUserAgentError(
                    .invalidOptions,
                    "the receiver waits at \(redirectURI.absoluteString), not at the registered redirect URI \(registered)"
                )
            }
            return
        }
        let expected: LoopbackRedirectURI
        do throws(LoopbackRedirectURI.Problem) {
            expected = try LoopbackRedirectURI(parsing: registered)
        } catch {
            throw ExternalUserAgentError(.invalidOptions, "the redirect URI '\(registered)' cannot be used: \(error)")
        }
        let actual = redirectURI.absoluteString
        guard let port = redirectURI.port, expected.uri(port: port) == actual else {
            throw ExternalUserAgentError(
                .invalidOptions,
                "the receiver listens at \(actual), not at the registered redirect URI \(registered): give the loopback "
                    + "receiver the option redirect-uri=\(registered)", remedies: [.giveRedirectURI])
        }
    }

    /// Checks the ID token when there is one (a present one must be valid), and makes and saves the state.
    /// Only the code flow must bring an ID token when `openid` was asked for; the device grant, which OpenID
    /// Connect does not define, may not: who signed in then comes from the UserInfo endpoint when the
    /// server has one, else stays unknown.
    private func finish(
        tokens: TokenResponse, client: ClientCredentials, authorization: AuthorizationResponse?,
        nonce: String?, dpopKey: DPoPKey? = nil, keys: JWKSCache? = nil
    ) async throws -> AuthState {
        var claims: IDTokenClaims?
        var identity: UserIdentity?
        if let idToken = tokens.idToken {
            let validator =
                keys.map {
                    IDTokenValidator(configuration: configuration, client: client, keys: $0, http: http, logger: logger)
                }
                ?? IDTokenValidator(configuration: configuration, client: client, http: http, logger: logger)
            let validated =
                try await validator
                .validate(idToken, nonce: nonce, delivery: authorization == nil ? .deviceGrant : .codeExchange)
            if authorization != nil { try parameters.check(validated, configuration: configuration) }
            claims = validated
            let header = CompactJWT(idToken)?.header
            progress?(.idTokenValidated(validated, algorithm: header?.alg ?? "?", keyID: header?.kid))
        } else if authorization != nil, scopes.contains("openid") {
            throw ExternalUserAgentError(
                .idTokenInvalid,
                "the token response has no ID token although 'openid' was asked for (OIDC Core §3.1.3.3)")
        } else if scopes.contains("openid"), configuration.userinfoEndpoint != nil {
            do {
                identity = try await UserIdentity.fetch(
                    configuration: configuration, client: client, accessToken: tokens.accessToken, http: http)
            } catch let error as ExternalUserAgentError {
                logger.warning("signed in without an ID token, and who signed in is unknown: \(error.message)")
            }
        } else {
            logger.info(
                "signed in without an ID token: who signed in is unknown",
                metadata: ["grant": "\(authorization == nil ? "device" : "authorization code")"])
        }
        let state = AuthState(
            configuration: configuration, client: client, scope: scopes.joined(separator: " "),
            tokenResponse: nil, file: file, http: http, logger: logger, dpopKey: dpopKey,
            refreshParameters: parameters.tokenFields.map { (name: $0.0, value: $0.1) })
        try await state.record(authorization: authorization, tokens: tokens, claims: claims, identity: identity)
        if let file { progress?(.saved(file)) }
        logger.info("signed in", metadata: ["issuer": "\(configuration.issuer)", "saved": "\(file?.path ?? "no")"])
        return state
    }
}

/// Passes presentation on to `inner` and reports it once the URL is shown.
private final class ReportingAgent: ExternalUserAgent {
    let inner: any ExternalUserAgent
    private let report: @Sendable (SignIn.Progress) -> Void
    private let reported = Mutex(false)

    init(inner: any ExternalUserAgent, report: @escaping @Sendable (SignIn.Progress) -> Void) {
        self.inner = inner
        self.report = report
    }

    var descriptor: AgentDescriptor { inner.descriptor }

    func present(_ request: AgentRequest, session: ExternalUserAgentSession) async throws {
        try await inner.present(request, session: session)
        reportPresented()
    }

    /// Reports the presentation unless already done: a callback proves it happened, and the report
    /// must come before the steps that follow even when `present` returns after the callback.
    func reportPresented() {
        let first = reported.withLock { done in
            defer { done = true }
            return !done
        }
        if first { report(.presented(agent: inner.descriptor)) }
    }

    func dismiss() async {
        await inner.dismiss()
    }
}

/// Carries the request out of the session's URL builder.
private final class RequestBox: Sendable {
    private let value = Mutex<AuthorizationRequest?>(nil)
    func set(_ request: AuthorizationRequest) { value.withLock { $0 = request } }
    func get() -> AuthorizationRequest? { value.withLock { $0 } }
}

extension SignIn {
    /// Whether this sign-in pushes its request; throws `invalidOptions` when the server requires pushing and it
    /// cannot: turned off (``usesPushedAuthorization``), or no endpoint in the metadata.
    func pushDecision() throws -> Bool {
        let required = configuration.requirePushedAuthorizationRequests
        if configuration.pushedAuthorizationRequestEndpoint == nil {
            guard !required else {
                throw ExternalUserAgentError(
                    .invalidOptions,
                    "the server requires pushed authorization requests (require_pushed_authorization_requests) but its "
                        + "metadata names no usable pushed_authorization_request_endpoint; the provider must fix its metadata"
                )
            }
            return false
        }
        if !usesPushedAuthorization, required {
            throw ExternalUserAgentError(
                .invalidOptions,
                "the server requires pushed authorization requests (require_pushed_authorization_requests, RFC 9126): "
                    + "leave pushing on (remove what turns it off: the caller's own setting, or [login] par = false in "
                    + "the configuration)", remedies: [.allowPushedRequests])
        }
        return usesPushedAuthorization
    }

    /// The URL for the agent after pushing `url`'s parameters.
    ///
    /// A push the server refused as a judgment of this request (``judgedRequest(_:)``: an unknown redirect URI, a
    /// client it does not know or that failed to authenticate…) ends the sign-in with the server's answer before any
    /// agent is shown: the same request in the URL could only fail, in the browser. Otherwise, when the server does
    /// not require pushing, a failed push (no answer, a 5xx, a 404 or 405, an invalid push response) falls back to
    /// `url` itself, logged as a warning.
    /// `onPushed` hears of a push the server accepted, with its `expires_in`.
    func pushed(
        _ url: URL, client: ClientCredentials, http: OAuthHTTP, logger: Logger,
        onPushed: (Int) -> Void = { _ in }
    ) async throws -> URL {
        do {
            let (pushedURL, response) = try await PushedAuthorizationRequest(
                configuration: configuration, client: client,
                http: http, logger: logger
            )
            .push(url, signed: client.signsRequestObjects)
            logger.info("authorization request pushed (RFC 9126)", metadata: ["expires_in": "\(response.expiresIn)"])
            onPushed(response.expiresIn)
            return pushedURL
        } catch let error as ExternalUserAgentError
            where !configuration.requirePushedAuthorizationRequests
            && !Self.judgedRequest(error)
        {
            logger.warning(
                "the pushed authorization request failed; sending the request in the URL instead: \(error.message)")
            return url
        } catch let error as ExternalUserAgentError where error.underlying is PushedAuthorizationRequest.Refusal {
            throw ExternalUserAgentError(
                error.code,
                "\(error.message); nothing was opened in a browser, where the same request would be refused too: check "
                    + "that the client ID, the redirect URI (exactly as registered) and the client's authentication are "
                    + "the ones registered with the provider", underlying: error.underlying)
        }
    }

    /// Whether a failed push was the server's judgment of the request, which the same request in the URL would meet
    /// again: an OAuth error other than `server_error` and `temporarily_unavailable`, or a 4xx status without one
    /// other than 404, 405, 408 and 429 (``PushedAuthorizationRequest/Refusal/judgesRequest``).
    static func judgedRequest(_ error: ExternalUserAgentError) -> Bool {
        if let refusal = error.underlying as? PushedAuthorizationRequest.Refusal { return refusal.judgesRequest }
        guard error.code == .oauthError, let refusal = error.underlying as? OAuthErrorResponse else { return false }
        return refusal.error != "server_error" && refusal.error != "temporarily_unavailable"
    }
}
