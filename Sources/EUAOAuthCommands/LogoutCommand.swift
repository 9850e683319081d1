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

/// `eua logout`: sign out of a state saved by `eua login` — revoke its tokens, end the provider's session
/// through an agent, forget the state.
///
/// Contract (other tools read it): exit 0 signed out; 3 signed out here but part of the provider's side failed
/// (a token not revoked, the end-session request not completed); 4 not signed in (no saved state); 1 nothing
/// could be done (an unreadable state, a bad configuration); 130 interrupted. With `--json` the last stdout
/// line is one JSON object (``LogoutOutput``).
package struct LogoutCommand: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Sign out: revoke the tokens, end the provider's session through an agent, forget the saved state.",
        discussion: """
            Revokes the refresh token, then the access token, at the provider's revocation_endpoint (RFC 7009), \
            authenticating as 'eua login' did (a confidential client needs --client-secret-file or \
            EUA_CLIENT_SECRET again); then presents the end-session request (OpenID Connect RP-Initiated Logout) \
            through the agent chosen as for 'eua login' (--agent, the configuration), with client_id and never \
            id_token_hint (a launched URL is broadcast on the session bus), and waits for the post-logout redirect \
            to the receiver (--post-logout-redirect-uri, else [logout] post-logout-redirect-uri: a URI registered \
            with the provider; a loopback one comes back to the loopback receiver, a private-use scheme one through \
            the scheme receiver). With neither, no post_logout_redirect_uri is sent (a provider refuses one it does \
            not know): the browser stays on the provider's page and eua cannot confirm that the session ended. \
            Then deletes the saved state under its lock. Revoked tokens are recorded in the saved state before the \
            browser step, so an interrupted or timed-out sign-out never gives them out again ('eua token' fails, \
            'eua accounts' says "signed out"). A token that cannot be revoked is reported, and the state is \
            deleted all the same unless --keep-on-failure. --local only deletes the state, with no network. \
            Exit status: 0 signed out, 3 signed out here but the provider's side did not all succeed, 4 not \
            signed in (no saved state), 1 failure (nothing done), 130 interrupted.
            """
    )

    @Option(
        name: [.customLong("state-file"), .customLong("state")],
        help: "The saved state file (default: the account --account names, see 'eua accounts').")
    var stateFile: String?

    @Option(
        help: ArgumentHelp(
            "The signed-in account: an id, subject, email or username as 'eua accounts' lists, or the start of one (default: the only account).",
            valueName: "account"))
    var account: String?

    @Flag(help: "Only forget the saved state: no revocation, no end-session request, no network.")
    var local = false

    @Option(
        help: "The user agent id for the end-session request (see 'eua agents'); default: chosen as for 'eua login'.")
    var agent: String?

    @Option(
        name: .customLong("agent-option"),
        help: ArgumentHelp("An agent option as key=value (repeatable).", valueName: "key=value"))
    var agentOptions: [String] = []

    @Option(
        help: ArgumentHelp(
            "The post-logout redirect URI as registered with the provider: http://127.0.0.1/logout, "
                + "http://127.0.0.1:8400/logout, or com.example.app:/logout (the scheme receiver) "
                + "(default: [logout] post-logout-redirect-uri, else none: the browser stays on the provider's page).",
            valueName: "uri"))
    var postLogoutRedirectURI: String?

    @Flag(
        help:
            "Send no post-logout redirect URI (the provider has none registered): the browser stays on the provider's page."
    )
    var noRedirect = false

    @Option(
        help: ArgumentHelp(
            "How the end-session request reaches the provider: client-id (a URL the agent opens, "
                + "with client_id and never the ID token), hint-post or hint-get (the ID token as "
                + "id_token_hint in a form the loopback receiver serves once; the agent is given only "
                + "that loopback URL; for a provider that ends a session only for a hint, hint-get for "
                + "one that takes it only by GET) (default: [logout.end-session] for the issuer, else client-id).",
            valueName: "mode"))
    var endSession: String?

    @Flag(help: "Do not end the provider's browser session: revoke and forget only.")
    var noEndSession = false

    @Flag(help: "Keep the saved state when a token could not be revoked, to try again later.")
    var keepOnFailure = false

    @Option(
        help: "The client secret. Other users can read it in 'ps': prefer --client-secret-file or EUA_CLIENT_SECRET.")
    var clientSecret: String?

    @Option(
        help: ArgumentHelp(
            "A file holding the client secret (yours, mode 0600); default: $EUA_CLIENT_SECRET.",
            valueName: "path"))
    var clientSecretFile: String?

    @Option(
        help: ArgumentHelp(
            "The client's private key file, for a client that authenticates with private_key_jwt.", valueName: "file"))
    var clientKey: String?

    @Option(help: "Seconds the sign-out may take, the person on the provider's page included.")
    var timeout: Int = 120

    @Flag(help: "Allow test agents (kind testDouble), like EUA_ALLOW_TEST_AGENTS=1.")
    var allowTestAgents = false

    @Flag(help: "Print what was done as one JSON object on the last line.")
    var json = false

    package func validate() throws {
        if stateFile != nil, account != nil { throw ValidationError(SavedStateChoice.conflict) }
        guard (1...86_400).contains(timeout) else {
            throw ValidationError("--timeout must be a number of seconds from 1 to 86400")
        }
        if clientSecret != nil, clientSecretFile != nil {
            throw ValidationError("give --client-secret-file or --client-secret, not both")
        }
        if postLogoutRedirectURI != nil, noRedirect {
            throw ValidationError("give --post-logout-redirect-uri or --no-redirect, not both")
        }
        if let endSession, SignOut.Delivery(rawValue: endSession) == nil {
            throw ValidationError("--end-session must be client-id, hint-post or hint-get, not '\(endSession)'")
        }
        if let endSession, endSession != "client-id", noRedirect || noEndSession {
            throw ValidationError(
                "--end-session \(endSession) sends the ID token through the loopback receiver, which "
                    + "needs a post-logout redirect URI: give it without --no-redirect and --no-end-session")
        }
        if local,
            agent != nil || postLogoutRedirectURI != nil || noRedirect || noEndSession || keepOnFailure
                || endSession != nil
        {
            throw ValidationError(
                "--local only forgets the saved state: give it without --agent, --post-logout-redirect-uri, "
                    + "--no-redirect, --no-end-session or --keep-on-failure")
        }
        if let postLogoutRedirectURI, let problem = Self.problem(with: postLogoutRedirectURI) {
            throw ValidationError("--post-logout-redirect-uri \(postLogoutRedirectURI): \(problem)")
        }
        _ = try AgentOptions.parse(agentOptions)
    }

    package func run() throws {
        let environment = ProcessEnvironment.current()
        CommandLogging.bootstrap(environment: environment)
        let logger = Logger(label: "eua.logout")
        let choice = savedState(environment: environment)
        let file = choice.file
        guard FileManager.default.fileExists(atPath: file.path) else {
            report(
                LogoutOutput(stateFile: file.path, notSignedIn: true), status: 4,
                message: "not signed in: there is no saved state at \(file.path); nothing to sign out of")
        }
        if local {
            let removed = try Blocking.run { try await CommandFailure.reporting { try await file.remove() } }
            var output = LogoutOutput(stateFile: file.path)
            output.state_removed = removed
            Output.line("Forgot the saved state \(file.path) (nothing was sent to the provider).")
            if json { Output.json(output.jsonText()) }
            return
        }
        let secret = try ClientSecretSource.secret(file: clientSecretFile, flag: clientSecret, environment: environment)
        let seconds = timeout
        let state = try Blocking.run {
            try await CommandFailure.reporting {
                try AuthState.loadUsingRegistration(
                    from: file, registrationHome: choice.registrationHome, clientSecret: secret,
                    clientKeyPath: clientKey,
                    http: OAuthHTTP().ending(after: .seconds(seconds)), logger: logger)
            }
        }
        var signOut = SignOut(
            state: state, timeout: .seconds(seconds), http: OAuthHTTP().ending(after: .seconds(seconds)),
            logger: logger)
        if state.configuration.revocationEndpoint == nil, state.configuration.endSessionEndpoint == nil {
            // A state saved before its provider advertised sign-out (or by an older eua): read the metadata again.
            let issuer = state.configuration.issuer
            let fresh = try? Blocking.run {
                try await Discovery(http: OAuthHTTP().ending(after: .seconds(min(seconds, 15))), logger: logger)
                    .configuration(issuer: issuer)
            }
            if let fresh { signOut.configuration = fresh }
        }
        let presenter = try endSession(for: signOut.configuration, environment: environment)
        signOut.endsSession = !noEndSession
        signOut.delivery = presenter?.delivery ?? .clientID
        signOut.keepsStateOnRevocationFailure = keepOnFailure
        let run = Blocking.runInterruptible { [signOut] in
            try await CommandFailure.reporting {
                try await signOut.run(agent: presenter?.agent, receiver: try presenter?.receiver())
            }
        }
        if run.interrupted {
            // What the state file says now: the tokens revoked before the interruption are recorded there.
            let revoked = try? Blocking.run { try await AuthState.load(from: file).revokedTokens }
            let said = (revoked ?? nil).map {
                "the sign-out was cancelled after revoking the " + $0.kinds.map(\.words).joined(separator: " and ")
                    + "; the saved state was kept, marked signed out (its tokens are not used again)"
            }
            Output.errorLine(
                "eua logout: interrupted; \(said ?? "the saved state was kept") (run eua logout again to "
                    + "end the provider's session, or eua logout --local to forget the state without the provider)")
            Output.exit(130)
        }
        let outcome = try run.result.get()
        var output = LogoutOutput(outcome, issuer: state.configuration.issuer, stateFile: file.path)
        output.noRedirectConfigured = presenter != nil && presenter?.redirects == false && !noRedirect
        if outcome.endSessionNeedsHint {
            // For eua doctor; a note that cannot be saved costs only that advice.
            try? ProviderNotes.standard(environment: environment).recordEndSessionNeedsHint(
                issuer: state.configuration.issuer)
        }
        Output.lines(output.lines)
        for warning in output.warnings { Output.errorLine("eua logout: \(warning)") }
        if json { Output.json(output.jsonText()) }
        if output.providerSideFailed { Output.exit(3) }
    }

    /// The agent and the receiver for the end-session request, chosen as `eua login` chooses; `nil` when none
    /// is to be presented (`--no-end-session`, or the provider has no end-session endpoint).
    private func endSession(for service: ServiceConfiguration, environment: [String: String]) throws
        -> (
            agent: any ExternalUserAgent, redirects: Bool, delivery: SignOut.Delivery,
            receiver: @Sendable () throws -> (any RedirectReceiver)?
        )?
    {
        guard !noEndSession, service.endSessionEndpoint != nil else { return nil }
        let options = try AgentOptions.parse(agentOptions)
        var code = CodeConfiguration.commandLine
        if allowTestAgents { code.allowTestAgents = true }
        if let agent { code.name(agent, options: options) }
        let configuration: Configuration
        do {
            configuration = try Configuration.load(sources: .standard(environment: environment), code: code)
        } catch {
            throw CommandFailure("\(error.commandLineReport)")
        }
        // Only a URI registered with the provider (given, or configured): a provider refuses one it does not know.
        let registered = noRedirect ? nil : postLogoutRedirectURI ?? configuration.postLogoutRedirectURI
        let redirects = registered != nil
        let deliveryName = endSession ?? configuration.endSession(issuer: service.issuer) ?? "client-id"
        let delivery = SignOut.Delivery(rawValue: deliveryName) ?? .clientID
        if delivery != .clientID, registered.map(PrivateUseScheme.isPrivateUse) != false {
            throw CommandFailure(
                "the end-session mode \(deliveryName) ("
                    + (endSession != nil ? "--end-session" : "[logout.end-session] for \(service.issuer)")
                    + ") sends the ID token in a form the loopback receiver serves, so it needs a loopback post-logout "
                    + "redirect URI registered with the provider: give --post-logout-redirect-uri or set [logout] "
                    + "post-logout-redirect-uri")
        }
        // A private-use scheme post-logout redirect URI comes back through the scheme receiver.
        let receiverID = registered.map(PrivateUseScheme.isPrivateUse) == true ? "scheme" : "loopback"
        // No device step: an end-session request is shown in a browser, or its URL given to the person.
        var browserOnly = service
        browserOnly.deviceAuthorizationEndpoint = nil
        func plan(_ catalog: PluginCatalog) -> SignInPlan {
            SignInChain.plan(
                candidates: AgentSelection.candidates(catalog: catalog), configuration: configuration,
                service: browserOnly)
        }
        // A named agent needs only its own plugin and the receiver's, as for eua login.
        let (catalog, _) = CommandCatalog.load(
            named: agent, others: redirects ? [receiverID] : [],
            environment: environment
        ) { few in
            (!redirects || few.receiver(id: receiverID) != nil) && plan(few).chosen?.agent?.descriptor.id == agent
                && configuration.preference.first == agent
        }
        let chosen = plan(catalog)
        guard let step = chosen.chosen, let candidate = step.agent else {
            throw CommandFailure(
                "no agent can show the provider's sign-out page (give --no-end-session to revoke and "
                    + "forget only); the chain said: \(chosen.error.commandLineReport)")
        }
        let given = configuration.permitted(agent == nil ? options : [:], for: candidate.descriptor)
        for refusal in given.refused { Output.errorLine("eua logout: warning: \(refusal)") }
        let made = candidate.makeAgent(options: step.options.merging(given.options) { $1 })
        guard let registered else { return (made, false, delivery, { nil }) }
        let receiverOptions = try Self.receiverOptions(registered: registered, configuration: configuration)
        let entry = catalog.receiver(id: receiverID)
        return (
            made, true, delivery,
            {
                guard let entry else {
                    throw ExternalUserAgentError(
                        .receiverFailed,
                        "no '\(receiverID)' redirect receiver was found; is "
                            + (receiverID == "scheme" ? "libEUAScheme.so" : "libEUALoopback.so")
                            + " beside eua or on EUA_PLUGIN_PATH? (see 'eua agents'), or give --no-redirect")
                }
                return entry.makeReceiver(options: receiverOptions)
            }
        )
    }

    /// The receiver's options for the post-logout redirect: the scheme receiver's scheme and path for a private-use
    /// `registered` URI; else the loopback receiver's, at `registered`.
    static func receiverOptions(registered: String, configuration: Configuration) throws -> [String: String] {
        var options: [String: String]
        if PrivateUseScheme.isPrivateUse(registered) {
            let parts = try PrivateUseScheme.redirectURIParts(registered)
            options = ["scheme": parts.scheme, "path": parts.path]
        } else {
            // The sign-in's redirect URI and path are not the sign-out's.
            options = configuration.receiverOptions
            options["redirect-uri"] = nil
            options["path"] = nil
            options["port"] = nil
            options["port-range"] = nil
            options["redirect-uri"] = registered
        }
        options["expect"] = "sign-out"
        return options
    }

    /// Why `uri` cannot be a post-logout redirect URI (loopback `http`, or a private-use scheme one), or `nil`.
    static func problem(with uri: String) -> String? {
        if PrivateUseScheme.isPrivateUse(uri) {
            do throws(PrivateUseScheme.RedirectURIProblem) {
                _ = try PrivateUseScheme.redirectURIParts(uri)
                return nil
            } catch {
                return error.description
            }
        }
        do throws(LoopbackRedirectURI.Problem) {
            _ = try LoopbackRedirectURI(parsing: uri)
            return nil
        } catch {
            return error.description
        }
    }

    /// The state to sign out of: `--state-file`, else the account `--account` names (the only one without it);
    /// no account saved is "not signed in" (exit 4), a bad `--account` a failure (exit 1).
    private func savedState(environment: [String: String]) -> SavedStateChoice {
        let (stateFile, account) = (stateFile, account)
        do {
            return try Blocking.run {
                try await SavedStateChoice.choose(stateFile: stateFile, account: account, environment: environment)
            }
        } catch let error as ExternalUserAgentError where error.code == .notAuthorized {
            report(
                LogoutOutput(stateFile: AuthAccounts.standard(environment: environment).folder, notSignedIn: true),
                status: 4,
                message: "not signed in: \(error.commandLineMessage); nothing to sign out of")
        } catch {
            Output.errorLine("eua logout: \((error as? ExternalUserAgentError)?.commandLineMessage ?? "\(error)")")
            Output.exit(1)
        }
    }

    private func report(_ output: LogoutOutput, status: Int32, message: String) -> Never {
        Output.errorLine("eua logout: \(message)")
        if json { Output.json(output.jsonText()) }
        Output.exit(status)
    }
}
