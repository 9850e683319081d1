// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ArgumentParser
import EUACommandSupport
import ExternalUserAgentCore
import ExternalUserAgentOAuth
import ExternalUserAgentSystem
import ExternalUserAgentTesting
import Logging
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `eua demo`: a whole sign-in against the testing kit's local authorization server, in this process,
/// with nothing else running — no account, no browser, no display, no network.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: DemoProgram.command.0,
        abstract: DemoProgram.command.1,
        discussion: """
            Starts the local authorization server of ExternalUserAgentTesting on 127.0.0.1, then signs in \
            to it the way 'eua login' does: discovery, the 'loopback' receiver plugin, an agent plugin, the \
            response checks, the token exchange with PKCE, ID token validation, and the state saved with mode \
            0600; then signs out: the tokens revoked, the session ended through the same agent and receiver, the \
            state file removed (--no-sign-out keeps it). By default the agent is 'headless' in follow mode, a \
            test agent that acts as a browser with no person at it; the demo allows it without \
            EUA_ALLOW_TEST_AGENTS. With --agent naming another \
            agent (a real browser, when there is a display), the server shows its login form there.
            """
    )

    @Option(help: "The user agent id (see 'eua agents').")
    var agent: String = "headless"

    @Option(
        name: .customLong("agent-option"),
        help: ArgumentHelp("An agent option as key=value (repeatable).", valueName: "key=value"))
    var agentOptions: [String] = []

    @Option(help: "The loopback receiver's port (default: any free port).")
    var port: Int?

    @Option(help: "The local authorization server's port (default: any free port).")
    var serverPort: Int?

    @Option(help: "Who signs in: the subject the server approves, or the login form's default user name.")
    var subject: String = "alice"

    @Flag(help: "Make the server show its login form to the headless agent too (which fills it in).")
    var loginForm = false

    @Option(help: "The ID token signing algorithm: RS256 or ES256.")
    var signingAlgorithm: String = "RS256"

    @Option(
        name: .customLong("misbehave"),
        help: ArgumentHelp(
            "Make the server misbehave on purpose, to see the client refuse (repeatable): "
                + LocalAuthorizationServerOptions.Misbehavior.allCases.map(\.rawValue).joined(separator: ", ") + ".",
            valueName: "fault"))
    var misbehaviors: [String] = []

    @Option(help: "Seconds to wait for the sign-in to finish in the agent.")
    var timeout: Int = 300

    @Option(help: "Where to save the authorization state (default: a new temporary folder).")
    var stateFile: String?

    @Flag(help: "Stay signed in: skip the sign-out step and keep the state file.")
    var noSignOut = false

    @Flag(help: "Print every step and its status as one JSON object on the last line.")
    var json = false

    func validate() throws {
        if let port, !(1...65535).contains(port) { throw ValidationError("--port must be 1 to 65535") }
        if let serverPort, !(1...65535).contains(serverPort) {
            throw ValidationError("--server-port must be 1 to 65535")
        }
        guard timeout > 0 else { throw ValidationError("--timeout must be a positive number of seconds") }
        guard !subject.isEmpty else { throw ValidationError("--subject must not be empty") }
        for option in agentOptions where !option.contains("=") {
            throw ValidationError("--agent-option '\(option)' is not key=value")
        }
        guard LocalAuthorizationServerOptions.SigningAlgorithm(rawValue: signingAlgorithm.uppercased()) != nil else {
            throw ValidationError("--signing-algorithm must be RS256 or ES256")
        }
        for name in misbehaviors where LocalAuthorizationServerOptions.Misbehavior(rawValue: name) == nil {
            throw ValidationError(
                "--misbehave '\(name)' is unknown; use one of "
                    + LocalAuthorizationServerOptions.Misbehavior.allCases.map(\.rawValue).joined(separator: ", "))
        }
    }

    func run() throws {
        let environment = ProcessEnvironment.current()
        CommandLogging.bootstrap(environment: environment)
        let logger = Logger(label: "eua.demo")
        let report = DemoReport(streaming: !json)
        let headless = agent == LocalSignInDemo.headlessAgent
        if !json {
            print(
                "eua demo: a complete sign-in against a local authorization server, in this process (no account, no network)."
            )
            if headless {
                print(
                    "The agent is 'headless', a test agent (kind testDouble) acting as a browser with no person at it; "
                        + "this demo allows it, 'eua login' would need EUA_ALLOW_TEST_AGENTS=1.")
            }
            Output.flush()
        }

        // Choosing the plugins and the state file comes before any step: a failure there names no step.
        let outcome: Result<Outcome, any Error>
        do {
            let catalog = PluginLoader(searchPath: .standard(environment: environment), logger: logger).load()
            // An installation without the test agents (scripts/install without --with-test-agents, the Debian
            // package) has no headless plugin: the testing kit's in-process fake plays the browser instead.
            let inProcess = headless && catalog.agent(id: agent) == nil
            if inProcess, !json {
                print(
                    "The headless plugin is not installed here (scripts/install --with-test-agents installs it), so the "
                        + "testing kit's in-process fake agent plays the browser: it signs in on the server's page in process."
                )
                Output.flush()
            }
            try checkPlugins(in: catalog, agentInProcess: inProcess)
            let demo = try LocalSignInDemo(
                agent: agent, subject: subject, loginForm: loginForm,
                signingAlgorithm: .init(rawValue: signingAlgorithm.uppercased()) ?? .rs256,
                misbehaviors: Set(misbehaviors.compactMap(LocalAuthorizationServerOptions.Misbehavior.init)),
                serverPort: serverPort ?? 0, stateFile: stateFile, environment: environment)
            var options = demo.agentOptions
            for option in agentOptions {
                let parts = option.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                options[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
            }
            let (configuration, steps) = (try demoConfiguration(), DemoSteps(report: report, demo: demo))
            let (seconds, receiverOptions) = (timeout, port.map { ["port": String($0)] } ?? [:])
            let (skipSignOut, agentID) = (noSignOut, agent)
            outcome = Result {
                try Blocking.run { [options] in
                    try await demo.run { server in
                        steps.serverStarted(server)
                        let fake = FakeExternalUserAgent(
                            id: LocalSignInDemo.headlessAgent, kind: .testDouble,
                            script: .signIn(at: server, as: server.options.subject))
                        let registered = inProcess ? [AgentCandidate(agent: fake)] : []
                        let flow = SignInFlow(
                            issuer: server.issuer, client: ClientCredentials(clientID: server.options.clientID),
                            scopes: ["openid", "email"], timeout: .seconds(seconds),
                            file: AuthStateFile(path: demo.stateFile),
                            candidates: AgentSelection.candidates(catalog: catalog, registered: registered),
                            configuration: configuration,
                            agentOptions: options, receiver: .plugin(in: catalog), receiverOptions: receiverOptions,
                            hooks: steps.hooks, logger: logger)
                        let state = try await flow.run()
                        let claims = await state.idTokenClaims
                        if claims == nil {
                            report.failedAtNextStep("the sign-in ended without a validated ID token")
                        } else if skipSignOut {
                            report.passed(
                                .signOut, "not signed out (--no-sign-out): the state stays in \(demo.stateFile)")
                        } else {
                            let agent: any ExternalUserAgent =
                                inProcess
                                ? FakeExternalUserAgent(
                                    id: LocalSignInDemo.headlessAgent, kind: .testDouble,
                                    script: .signOut(at: server))
                                : try Self.pluginAgent(named: agentID, in: catalog, options: options)
                            let receiver = catalog.receiver(id: "loopback")?
                                .makeReceiver(options: receiverOptions.merging(["expect": "sign-out"]) { $1 })
                            let outcome = try await SignOut(state: state, timeout: .seconds(seconds), logger: logger)
                                .run(agent: agent, receiver: receiver)
                            steps.signedOut(outcome, server: server, stateFile: demo.stateFile)
                        }
                        return Outcome(issuer: server.issuer, subject: claims?.subject, stateFile: demo.stateFile)
                    }
                }
            }
            if case .failure(let error) = outcome {
                report.failedAtNextStep(Self.describe(error))
            }
        } catch {
            outcome = .failure(error)
        }
        let succeeded = (try? outcome.get()) != nil && report.allPassed
        if json {
            let value = try? outcome.get()
            let output = DemoOutput(
                ok: succeeded, issuer: value?.issuer, agent: agent, testAgentAllowed: headless,
                subject: value?.subject, stateFile: value?.stateFile, steps: report.entries,
                error: outcome.failureDescription ?? report.firstFailure)
            Output.json(try output.jsonText())
        } else if succeeded, let value = try? outcome.get() {
            Output.lines(
                """

                Signed in as \(value.subject ?? "(no subject)")\(noSignOut ? "" : ", then signed out"). That was the whole \
                RFC 8252 flow: the app's own loopback receiver, an external user agent, PKCE, the response and ID token \
                checks, and a private state file\(noSignOut ? "" : "; then RFC 7009 revocation and an RP-Initiated Logout").
                Next, sign in to a real provider (register a native app there with a loopback redirect URI, http://127.0.0.1):
                  eua login --issuer https://accounts.example.com --client-id YOUR-CLIENT-ID --scope "openid email"
                """.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
        }
        Output.flush()
        guard succeeded else {
            Output.errorLine("Error: \(outcome.failureDescription ?? report.firstFailure ?? "a step did not pass")")
            throw ExitCode.failure
        }
    }

    /// Refuses, before any step, an agent the demo cannot use and a missing receiver, saying what to do.
    private func checkPlugins(in catalog: PluginCatalog, agentInProcess: Bool) throws {
        guard catalog.receiver(id: "loopback") != nil else {
            throw CommandFailure(
                "no 'loopback' redirect receiver was found; is libEUALoopback.so beside eua or on "
                    + "EUA_PLUGIN_PATH? (see 'eua agents')")
        }
        guard !agentInProcess else { return }
        guard let entry = catalog.agent(id: agent) else {
            throw CommandFailure(
                "no agent has the id '\(agent)'; 'eua agents' lists the agents the plugins beside "
                    + "eua and on EUA_PLUGIN_PATH offer")
        }
        guard entry.descriptor.kind != .embeddedWebView else {
            throw CommandFailure("agent '\(agent)' is an embedded web view, which RFC 8252 §8.12 rules out")
        }
        guard entry.available else {
            throw CommandFailure("agent '\(agent)' is not available here: " + entry.reasons.joined(separator: "; "))
        }
    }

    /// The plugin agent `id` of `catalog`, made with `options`, to present the end-session request.
    static func pluginAgent(named id: String, in catalog: PluginCatalog, options: [String: String]) throws
        -> any ExternalUserAgent
    {
        guard let entry = catalog.agent(id: id) else {
            throw ExternalUserAgentError(.agentNotFound, "no agent has the id '\(id)' for the sign-out")
        }
        return AgentCandidate(plugin: entry).makeAgent(options: options)
    }

    /// The demo's own rules, from no file or variable: the agent named, test agents allowed.
    private func demoConfiguration() throws -> Configuration {
        var code = CodeConfiguration(allowTestAgents: true)
        code.name(agent)
        let nothing = ConfigurationSources(environment: [:], systemFiles: [], userFile: nil, managedFile: nil)
        return try Configuration.load(sources: nothing, code: code)
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? ExternalUserAgentError { return "\(error.commandLineReport)" }
        return "\(error)"
    }

    /// What a successful run learnt.
    struct Outcome: Sendable {
        var issuer: String
        var subject: String?
        var stateFile: String
    }
}

/// What `eua demo --json` prints: every step with its status, and what the sign-in gave (no tokens).
struct DemoOutput: Encodable {
    var ok: Bool
    var issuer: String?
    var agent: String
    var test_agent_allowed: Bool
    var subject: String?
    var state_file: String?
    var steps: [DemoReport.Entry]
    var error: String?

    init(
        ok: Bool, issuer: String?, agent: String, testAgentAllowed: Bool, subject: String?, stateFile: String?,
        steps: [DemoReport.Entry], error: String?
    ) {
        self.ok = ok
        self.issuer = issuer
        self.agent = agent
        test_agent_allowed = testAgentAllowed
        self.subject = subject
        state_file = stateFile
        self.steps = steps
        self.error = error
    }

    func jsonText() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}

extension Result {
    /// The failure's words, or `nil` for a success.
    fileprivate var failureDescription: String? {
        guard case .failure(let error) = self else { return nil }
        return DemoCommand.describe(error)
    }
}
