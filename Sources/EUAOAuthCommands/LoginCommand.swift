// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ArgumentParser
import EUACommandSupport
import ExternalUserAgentCore
import ExternalUserAgentOAuth
import ExternalUserAgentSystem
import ExternalUserAgentRules
import Logging
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `eua login`: a whole OAuth 2.0 / OpenID Connect sign-in, from discovery to a saved state.
package struct LoginCommand: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign in: discovery, loopback redirect, the agent, checks, token exchange, ID token validation.",
        discussion: """
            The state (tokens and the server's configuration, never the client secret) is saved with mode 0600 \
            to --state-file, else as an account in $XDG_STATE_HOME/eua/accounts (one per issuer, client and \
            subject: signing in again replaces it, another person adds one; see 'eua accounts') — in the Secret \
            Service when one answers on the session bus, else in the file ([storage] backend forces one). Test agents (kind testDouble, \
            like 'headless') need EUA_ALLOW_TEST_AGENTS=1 or --allow-test-agents. A confidential client's secret \
            comes from --client-secret-file (mode 0600) or EUA_CLIENT_SECRET, which keep it out of the process list; \
            the way it is sent (client_secret_basic or client_secret_post) is --client-auth, else what the server \
            lists in token_endpoint_auth_methods_supported (basic first). \
            The redirect URI: --redirect-uri (else [login] redirect-uri in the configuration) is used as registered \
            with the provider — host 127.0.0.1, [::1] or localhost, its path, and its port when it names one (then \
            --port and --port-range are an error); without a port in it, --port, --port-range, [receiver] port or \
            port-range, else any free port. Without a redirect URI: http://127.0.0.1:PORT and [receiver] path, else \
            a random path. A private-use scheme redirect URI (com.example.app:/cb, RFC 8252 §7.1) is received by the \
            scheme receiver instead: register the scheme first with 'eua scheme register com.example.app'. --timeout bounds the whole sign-in: discovery, the person, tokens, keys. \
            Without --agent, the way is chosen automatically, in the order of flow-order in the configuration \
            (default browser, device, manual): a browser agent when one is available; else the device \
            authorization grant (RFC 8628) when the server advertises it; else the manual agent (the URL on \
            stderr, the ssh -L line on SSH, a pasted final URL on stdin). 'eua explain --issuer URL' shows why. \
            Ctrl-C cancels cleanly and exits 130. \
            Without --client-id, the client 'eua register' saved beside the state file is used; --account finds \
            the issuer with WebFinger. --id-token-alg, --claims, --request-object and --client-auth \
            client_secret_jwt/private_key_jwt (with --client-key) are the OpenID Connect relying-party options.
            """
    )

    @Option(help: "The issuer identifier of the authorization server (its metadata must name it exactly).")
    var issuer: String?

    @Option(
        help: ArgumentHelp(
            "Find the issuer from an account with WebFinger (OpenID Connect Discovery §2) instead of --issuer.",
            valueName: "user@host"))
    var account: String?

    @Option(
        help:
            "The client id registered with the server (default: the client 'eua register' saved beside the state file)."
    )
    var clientID: String?

    @Option(
        help: "The client secret. Other users can read it in 'ps': prefer --client-secret-file or EUA_CLIENT_SECRET.")
    var clientSecret: String?

    @Option(
        help: ArgumentHelp(
            "A file holding the client secret (yours, mode 0600); default: $EUA_CLIENT_SECRET, else a public client.",
            valueName: "path"))
    var clientSecretFile: String?

    @Option(
        help:
            "How the client authenticates at the token endpoint: client_secret_basic, client_secret_post, client_secret_jwt (a JWT signed with the secret) or private_key_jwt (a JWT signed with --client-key)."
    )
    var clientAuth: String?

    @Option(
        help: ArgumentHelp(
            "The client's private key, a JWK or PEM file only you may read (RSA or EC P-256): for private_key_jwt and --request-object.",
            valueName: "file"))
    var clientKey: String?

    @Flag(help: "Send the authorization request as a request object signed with --client-key (RFC 9101).")
    var requestObject = false

    @Option(
        help: ArgumentHelp(
            "The claims request parameter (OpenID Connect Core §5.5): a JSON object with 'userinfo' and/or 'id_token' members.",
            valueName: "json"))
    var claims: String?

    @Option(
        help: ArgumentHelp(
            "The algorithm the client registered for its ID tokens (id_token_signed_response_alg): "
                + "none (unsigned, code flow only), HS256/HS384/HS512 (checked with the client secret) or one asymmetric "
                + "algorithm; any other is then refused. Default: any of RS256…ES512.", valueName: "alg"))
    var idTokenAlg: String?

    @Option(help: "The scopes to ask for, space-separated.")
    var scope: String = "openid"

    @Option(
        help: ArgumentHelp(
            "What the provider should show: none, login, consent, select_account (several space- or comma-separated; none alone).",
            valueName: "values"))
    var prompt: String?

    @Option(help: ArgumentHelp("The account the person will likely sign in with (login_hint).", valueName: "account"))
    var loginHint: String?

    @Option(
        help: ArgumentHelp(
            "The longest time since the person last signed in at the provider (max_age); the ID token's auth_time is then checked.",
            valueName: "seconds"))
    var maxAge: Int?

    @Option(
        help: ArgumentHelp(
            "Authentication context classes to ask for, space-separated (acr_values); the ID token's acr is checked when the server lists one of them in acr_values_supported.",
            valueName: "values"))
    var acrValues: String?

    @Option(
        help: ArgumentHelp(
            "Languages for the provider's pages, space-separated BCP 47 tags (ui_locales).", valueName: "tags"))
    var uiLocales: String?

    @Option(
        help: ArgumentHelp(
            "An API the tokens are for, an absolute URI without fragment (RFC 8707; repeatable), sent in the authorization and token requests.",
            valueName: "uri"))
    var resource: [String] = []

    @Flag(
        help:
            "Do not push the authorization request (RFC 9126 PAR) even when the server offers it; refused when the server requires it."
    )
    var noPar = false

    @Flag(
        help: "Ask for DPoP-bound tokens (RFC 9449): a key made for this sign-in, kept with the tokens for refreshes.")
    var dpop = false

    @Option(
        name: .customLong("param"),
        help: ArgumentHelp(
            "An extra authorization request parameter (repeatable); names the client sets are refused.",
            valueName: "name=value"))
    var params: [String] = []

    @Option(
        name: .customLong("token-param"),
        help: ArgumentHelp(
            "An extra token request parameter for the code exchange (repeatable); names the client sets are refused.",
            valueName: "name=value"))
    var tokenParams: [String] = []

    @Option(
        help:
            "The user agent id (see 'eua agents'); it forces that agent. Default: the automatic chain (see the discussion)."
    )
    var agent: String?

    @Option(help: ArgumentHelp("Force one step of the chain: browser, device (RFC 8628) or manual.", valueName: "step"))
    var flow: String?

    @Option(
        name: .customLong("agent-option"),
        help: ArgumentHelp("An agent option as key=value (repeatable).", valueName: "key=value"))
    var agentOptions: [String] = []

    @Option(
        help: ArgumentHelp(
            "The redirect URI as registered with the provider: http://127.0.0.1/callback, "
                + "http://[::1]:8400/cb, http://localhost/cb (a port in it is used as is; none: any free port), "
                + "or a private-use scheme one, com.example.app:/cb (after 'eua scheme register com.example.app').",
            valueName: "uri"))
    var redirectURI: String?

    @Option(help: "The loopback port to listen on (default: any free port).")
    var port: Int?

    @Option(help: ArgumentHelp("A range of loopback ports to try, A-B.", valueName: "A-B"))
    var portRange: String?

    @Option(
        help:
            "Seconds the whole sign-in may take, server requests included (default: timeouts.authorization from the configuration, else 300)."
    )
    var timeout: Int?

    @Option(help: "Where to save the authorization state (default: an account, see 'eua accounts').")
    var stateFile: String?

    @Flag(help: "Allow test agents (kind testDouble), like EUA_ALLOW_TEST_AGENTS=1.")
    var allowTestAgents = false

    @Flag(help: "Print the token response as one JSON object on the last line (it holds the tokens).")
    var json = false

    package func validate() throws {
        guard (issuer == nil) != (account == nil) else {
            throw ValidationError("give --issuer or --account (exactly one)")
        }
        if port != nil, portRange != nil { throw ValidationError("give --port or --port-range, not both") }
        if let port, !(1...65535).contains(port) { throw ValidationError("--port must be 1 to 65535") }
        if let timeout, !(1...86_400).contains(timeout) {
            throw ValidationError("--timeout must be a number of seconds from 1 to 86400")
        }
        if let redirectURI, PrivateUseScheme.isPrivateUse(redirectURI) {
            do throws(PrivateUseScheme.RedirectURIProblem) {
                _ = try PrivateUseScheme.redirectURIParts(redirectURI)
            } catch {
                throw ValidationError("--redirect-uri \(redirectURI): \(error)")
            }
            if port != nil || portRange != nil {
                throw ValidationError(
                    "--redirect-uri \(redirectURI) is a private-use scheme URI (the scheme receiver): "
                        + "give no --port or --port-range with it")
            }
        } else if let redirectURI {
            let uri: LoopbackRedirectURI
            do throws(LoopbackRedirectURI.Problem) {
                uri = try LoopbackRedirectURI(parsing: redirectURI)
            } catch {
                throw ValidationError("--redirect-uri \(redirectURI): \(error)")
            }
            if let uriPort = uri.port, port != nil || portRange != nil {
                throw ValidationError(
                    "--redirect-uri \(redirectURI) has the port \(uriPort): give no --port or --port-range "
                        + "with it (leave the port out of the URI for a free one)")
            }
        }
        if clientSecret != nil, clientSecretFile != nil {
            throw ValidationError("give --client-secret-file or --client-secret, not both")
        }
        for option in agentOptions where !option.contains("=") {
            throw ValidationError("--agent-option '\(option)' is not key=value")
        }
        if let clientAuth, ClientCredentials.AuthenticationMethod(rawValue: clientAuth) == nil || clientAuth == "none" {
            throw ValidationError(
                "--client-auth must be client_secret_basic, client_secret_post, client_secret_jwt or private_key_jwt")
        }
        if clientKey == nil, requestObject || clientAuth == "private_key_jwt" {
            throw ValidationError(
                "\(requestObject ? "--request-object" : "--client-auth private_key_jwt") needs the client's private key: give --client-key FILE"
            )
        }
        if let claims {
            do { _ = try ClaimsRequest(json: claims) } catch let error as ExternalUserAgentError {
                throw ValidationError("--claims: \(error.commandLineMessage)")
            }
        }
        if let idTokenAlg {
            do { _ = try IDTokenAlgorithm(idTokenAlg) } catch let error as ExternalUserAgentError {
                throw ValidationError("--id-token-alg: \(error.commandLineMessage)")
            }
        }
        do {
            try requestParameters().validate()
        } catch let error as ExternalUserAgentError {
            throw ValidationError(error.commandLineMessage)
        }
        if let flow {
            guard let step = SignInStep(rawValue: flow) else {
                throw ValidationError("--flow must be browser, device or manual")
            }
            if agent != nil, step == .device { throw ValidationError("give --agent or --flow device, not both") }
        }
    }

    package func run() throws {
        let environment = ProcessEnvironment.current()
        CommandLogging.bootstrap(environment: environment)
        let logger = Logger(label: "eua.login")
        let issuer = try resolvedIssuer(logger: logger)
        let configuration = try loadedConfiguration(environment: environment)
        let secret = try ClientSecretSource.secret(file: clientSecretFile, flag: clientSecret, environment: environment)
        var file = stateFile.map(AuthStateFile.init(path:)) ?? AuthStateFile.standard(environment: environment)
        let storage = try storageChoice(configuration)
        file.backend = storage.backend
        let (client, receiverOptions) = try clientAndReceiverOptions(
            issuer: issuer, file: file, secret: secret,
            configuration: configuration)
        var signIn = try startedFlow(
            issuer: issuer, client: client, receiverOptions: receiverOptions, file: file,
            configuration: configuration, logger: logger)
        loadPlugins(into: &signIn, configuration: configuration, environment: environment)
        let display = LoginProgress(timeout: signIn.effectiveTimeout)
        signIn.hooks = display.hooks
        let outcome = try signInAndSave(
            signIn, display: display, file: file, storage: storage, environment: environment)
        try report(outcome, issuer: issuer, storage: storage, display: display)
    }
}

extension LoginCommand {
    /// `--agent-option key=value` pairs, as a dictionary.
    var parsedAgentOptions: [String: String] {
        var options: [String: String] = [:]
        for option in agentOptions {
            let parts = option.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            options[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        return options
    }

    /// Every configuration layer, with `--agent`, `--agent-option` and `--allow-test-agents` as the code layer.
    func loadedConfiguration(environment: [String: String]) throws -> Configuration {
        var code = CodeConfiguration.commandLine
        if allowTestAgents { code.allowTestAgents = true }
        if let agent {
            code.name(agent, options: parsedAgentOptions)
        }
        do {
            return try Configuration.load(sources: .standard(environment: environment), code: code)
        } catch {
            throw CommandFailure("\(error.commandLineReport)")
        }
    }

    /// Where the tokens go: --state-file keeps everything in that file unless the configuration forces a back end.
    func storageChoice(_ configuration: Configuration) throws -> StorageChoice {
        do {
            return stateFile != nil && configuration.storageBackend == nil
                ? StorageChoice(backend: .file, reason: "--state-file") : try StorageChoice.choose(configuration)
        } catch let error as ExternalUserAgentError {
            throw CommandFailure("\(error.commandLineReport)")
        }
    }

    /// The client (from --client-id, else the registration 'eua register' saved) and the receiver options the
    /// command line and the registration give.
    func clientAndReceiverOptions(
        issuer: String, file: AuthStateFile, secret: String?,
        configuration: Configuration
    ) throws -> (ClientCredentials, [String: String]) {
        var client: ClientCredentials
        var receiverOptions: [String: String] = [:]
        if let clientID {
            client = ClientCredentials(
                clientID: clientID, clientSecret: secret,
                authenticationMethod: clientAuth.flatMap(ClientCredentials.AuthenticationMethod.init))
        } else {
            let registration = try RegisteredClient.forLogin(issuer: issuer, stateFile: file)
            client = registration.credentials
            if let secret { client.clientSecret = secret }
            // A redirect URI given (as registered, as the help asks) carries its own port and path: the
            // registration's are used only without one.
            if (redirectURI ?? configuration.redirectURI) == nil {
                receiverOptions = RegisteredClient.receiverOptions(registration)
            }
        }
        if let idTokenAlg { client.idTokenAlgorithm = try IDTokenAlgorithm(idTokenAlg) }
        do {
            client.signingKey = try clientKey.map(ClientSigningKey.load(path:))
        } catch let error as ExternalUserAgentError {
            throw CommandFailure("\(error.commandLineReport)")
        }
        client.signsRequestObjects = requestObject
        if let port { receiverOptions["port"] = String(port) }
        if let portRange { (receiverOptions["port"], receiverOptions["port-range"]) = (nil, portRange) }
        return (client, receiverOptions)
    }

    /// The sign-in flow, with its server metadata read started. The flow is made before the plugins are loaded
    /// (its candidates and receiver are set from them by ``loadPlugins(into:configuration:environment:)``), so that
    /// the server's metadata is read while they load.
    func startedFlow(
        issuer: String, client: ClientCredentials, receiverOptions: [String: String], file: AuthStateFile,
        configuration: Configuration, logger: Logger
    ) throws -> SignInFlow {
        let extraParameters = try claims.map { [try ClaimsRequest(json: $0).parameter] } ?? []
        var signIn = SignInFlow(
            issuer: issuer, client: client, scopes: scope.split(separator: " ").map(String.init),
            additionalParameters: extraParameters,
            timeout: timeout.map { .seconds($0) }, file: stateFile == nil ? nil : file, candidates: [],
            configuration: configuration, forcedStep: flow.flatMap(SignInStep.init(rawValue:)),
            agentOptions: agent == nil ? parsedAgentOptions : [:], receiver: .plugin(in: PluginCatalog()),
            receiverOptions: receiverOptions, redirectURI: redirectURI, logger: logger)
        if let text = signIn.effectiveRedirectURI, let uri = try? LoopbackRedirectURI(parsing: text),
            uri.host == .localhost
        {
            Output.errorLine(
                "eua login: warning: the redirect URI \(uri) uses 'localhost', which RFC 8252 §8.3 discourages "
                    + "(the name may not resolve to this machine's loopback); eua listens on both 127.0.0.1 and [::1]. "
                    + "Register http://127.0.0.1/… instead where the provider allows it.")
        }
        signIn.parameters = try requestParameters()
        if noPar { signIn.usesPushedAuthorization = false }
        if dpop { signIn.usesDPoP = true }
        // The flow waits for this read after its own checks.
        do {
            try signIn.startDiscovery(priority: Blocking.priority)
        } catch let error as ExternalUserAgentError {
            throw CommandFailure("\(error.commandLineReport)")
        }
        return signIn
    }

    /// Loads the plugins and gives the flow its candidates and receiver. A named agent needs only its own plugin
    /// and the receiver's, when nothing else could be chosen instead: the browser step with that agent, first in
    /// the preference order (no --flow). A private-use scheme redirect URI is received by the scheme receiver
    /// (libEUAScheme.so) instead.
    func loadPlugins(into signIn: inout SignInFlow, configuration: Configuration, environment: [String: String]) {
        let receiverID =
            (redirectURI ?? configuration.redirectURI).map(PrivateUseScheme.isPrivateUse) == true
            ? "scheme" : "loopback"
        let (catalog, _) = CommandCatalog.load(
            named: flow == nil ? agent : nil, others: [receiverID],
            environment: environment
        ) { few in
            let plan = SignInChain.plan(
                candidates: AgentSelection.candidates(catalog: few), configuration: configuration,
                service: nil)
            return few.receiver(id: receiverID) != nil && plan.chosen?.agent?.descriptor.id == agent
                && configuration.preference.first == agent
        }
        signIn.candidates = AgentSelection.candidates(catalog: catalog)
        signIn.receiver = .plugin(in: catalog)
    }

    /// Runs the sign-in until it ends or Ctrl-C (exit 130), and saves the state: to --state-file, else as an account.
    func signInAndSave(
        _ signIn: SignInFlow, display: LoginProgress, file: AuthStateFile, storage: StorageChoice,
        environment: [String: String]
    ) throws -> LoginOutcome {
        let run = Blocking.runInterruptible { [signIn, stateFile] in
            try await CommandFailure.reporting {
                defer { display.stop() }
                let state = try await signIn.run()
                var accounts = AuthAccounts.standard(environment: environment)
                accounts.backend = storage.backend
                let saved = stateFile == nil ? try await accounts.save(state) : file
                return LoginOutcome(
                    tokens: await state.lastTokenResponse, claims: await state.idTokenClaims,
                    identity: await state.identity, client: state.client, stateFile: saved)
            }
        }
        if run.interrupted {
            Output.errorLine("eua login: interrupted; the sign-in was cancelled (receiver closed, agent dismissed)")
            Output.exit(130)
        }
        return try run.result.get()
    }

    /// Prints who signed in and where the state is (or, with --json, the token response), then how many requests
    /// to the redirect URI were turned away.
    func report(_ outcome: LoginOutcome, issuer: String, storage: StorageChoice, display: LoginProgress) throws {
        guard let tokens = outcome.tokens else { throw CommandFailure("the sign-in ended without tokens") }
        if json {
            Output.json(
                try TokenOutput(
                    tokens: tokens, claims: outcome.claims, identity: outcome.identity,
                    client: outcome.client, issuer: issuer, stateFile: outcome.stateFile.path,
                    refusedCallbacks: display.refusedCallbacks, pushed: display.pushed
                ).jsonText())
        } else {
            Output.line(SignedInAs.sentence(claims: outcome.claims, identity: outcome.identity, issuer: issuer))
            Output.line(
                storage.backend == .secretService
                    ? "Tokens saved in the Secret Service; the index beside them (no secrets) is \(outcome.stateFile.path)."
                    : "State saved to \(outcome.stateFile.path).")
        }
        let turnedAway = display.refusedCallbacks
        if turnedAway > 0 {
            Output.standardError(
                "eua login: \(turnedAway) other request\(turnedAway == 1 ? " was" : "s were") sent to the redirect "
                    + "URI and turned away (wrong state, path or form) while waiting; EUA_LOG_LEVEL=info shows why\n")
        }
    }
}

extension LoginCommand {
    /// The request parameters of `--prompt`, `--login-hint`, `--max-age`, `--acr-values`, `--ui-locales`,
    /// `--resource`, `--param` and `--token-param`; throws `invalidOptions` for a bad `--prompt` or a
    /// `--param`/`--token-param` that is not name=value (the rest is checked by `validate()`).
    func requestParameters() throws -> AuthorizationParameters {
        func words(_ text: String?) -> [String] { (text ?? "").split(separator: " ").map(String.init) }
        func pairs(_ given: [String], _ flag: String) throws -> [(name: String, value: String)] {
            try given.map { text in
                guard let equals = text.firstIndex(of: "=") else {
                    throw ExternalUserAgentError(.invalidOptions, "\(flag) '\(text)' is not name=value")
                }
                return (String(text[..<equals]), String(text[text.index(after: equals)...]))
            }
        }
        return AuthorizationParameters(
            prompt: try prompt.map { try Prompt.parse($0, source: "--prompt") } ?? [], loginHint: loginHint,
            maxAge: maxAge, acrValues: words(acrValues), uiLocales: words(uiLocales), resources: resource,
            extraAuthorizationParameters: try pairs(params, "--param"),
            extraTokenParameters: try pairs(tokenParams, "--token-param"))
    }

    /// `--issuer`, or the issuer WebFinger finds for `--account`.
    func resolvedIssuer(logger: Logger) throws -> String {
        if let issuer { return issuer }
        let account = self.account ?? ""
        let found = try Blocking.run {
            try await CommandFailure.reporting { try await WebFinger(logger: logger).issuer(for: account) }
        }
        Output.standardError("eua login: WebFinger found issuer \(found) for \(account)\n")
        return found
    }
}
