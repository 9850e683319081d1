import ArgumentParser
import EUACommandSupport
import ExternalUserAgent
import ExternalUserAgentOAuth
import ExternalUserAgentTesting
import Logging
import Synchronization
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// `eua demo`: a whole sign-in against the testing kit's local authorization server, in this process,
/// with nothing else running — no account, no browser, no display, no network.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: OAuthCommands.demo.0,
        abstract: OAuthCommands.demo.1,
        discussion: """
            Starts the local authorization server of ExternalUserAgentTesting on 127.0.0.1, then signs in \
            to it the way 'eua login' does: discovery, the 'loopback' receiver plugin, an agent plugin, the \
            response checks, the token exchange with PKCE, ID token validation, and the state saved with mode \
            0600. By default the agent is 'headless' in follow mode, a test agent that acts as a browser with \
            no person at it; the demo allows it without EUA_ALLOW_TEST_AGENTS. With --agent naming another \
            agent (a real browser, when there is a display), the server shows its login form there.
            """
    )

    @Option(help: "The user agent id (see 'eua agents').")
    var agent: String = "headless"

    @Option(name: .customLong("agent-option"), help: ArgumentHelp("An agent option as key=value (repeatable).", valueName: "key=value"))
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

    @Option(name: .customLong("misbehave"), help: ArgumentHelp(
        "Make the server misbehave on purpose, to see the client refuse (repeatable): "
            + LocalAuthorizationServerOptions.Misbehavior.allCases.map(\.rawValue).joined(separator: ", ") + ".",
        valueName: "fault"))
    var misbehaviors: [String] = []

    @Option(help: "Seconds to wait for the sign-in to finish in the agent.")
    var timeout: Int = 300

    @Option(help: "Where to save the authorization state (default: a new temporary folder).")
    var stateFile: String?

    @Flag(help: "Print every step and its status as one JSON object on the last line.")
    var json = false

    func validate() throws {
        if let port, !(1...65535).contains(port) { throw ValidationError("--port must be 1 to 65535") }
        if let serverPort, !(1...65535).contains(serverPort) { throw ValidationError("--server-port must be 1 to 65535") }
        guard timeout > 0 else { throw ValidationError("--timeout must be a positive number of seconds") }
        guard !subject.isEmpty else { throw ValidationError("--subject must not be empty") }
        for option in agentOptions where !option.contains("=") {
            throw ValidationError("--agent-option '\(option)' is not key=value")
        }
        guard LocalAuthorizationServerOptions.SigningAlgorithm(rawValue: signingAlgorithm.uppercased()) != nil else {
            throw ValidationError("--signing-algorithm must be RS256 or ES256")
        }
        for name in misbehaviors where LocalAuthorizationServerOptions.Misbehavior(rawValue: name) == nil {
            throw ValidationError("--misbehave '\(name)' is unknown; use one of "
                + LocalAuthorizationServerOptions.Misbehavior.allCases.map(\.rawValue).joined(separator: ", "))
        }
    }

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        CommandLogging.bootstrap(environment: environment)
        let logger = Logger(label: "eua.demo")
        let report = DemoReport(streaming: !json)
        let headless = agent == "headless"
        let showsForm = loginForm || !headless
        var serverOptions = LocalAuthorizationServerOptions(
            clientID: "eua-demo", subject: subject, authorizationPage: showsForm ? .loginForm : .autoApprove,
            signingAlgorithm: .init(rawValue: signingAlgorithm.uppercased()) ?? .rs256)
        serverOptions.misbehaviors = Set(misbehaviors.compactMap(LocalAuthorizationServerOptions.Misbehavior.init))

        if !json {
            print("eua demo: a complete sign-in against a local authorization server, in this process (no account, no network).")
            if headless {
                print("The agent is 'headless', a test agent (kind testDouble) acting as a browser with no person at it; "
                    + "this demo allows it, 'eua login' would need EUA_ALLOW_TEST_AGENTS=1.")
            }
            Output.flush()
        }

        // Choosing the plugins and the state file comes before any step: a failure there names no step.
        let outcome: Result<Outcome, any Error>
        do {
            let catalog = PluginLoader(searchPath: .standard(environment: environment), logger: logger).load()
            let (agentEntry, receiverEntry) = try plugins(in: catalog)
            var options = headless ? ["mode": "follow"] : [:]
            if headless, showsForm { options["form.username"] = subject }
            for option in agentOptions {
                let parts = option.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                options[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
            }
            let agent = agentEntry.makeAgent(options: options)
            let receiver = receiverEntry.makeReceiver(options: port.map { ["port": String($0)] } ?? [:])
            let (file, temporary) = try stateFileLocation()
            let flow = DemoFlow(serverOptions: serverOptions, serverPort: serverPort ?? 0, timeout: timeout,
                                file: file, temporaryFile: temporary, showsForm: showsForm, headless: headless,
                                logger: logger, report: report)
            outcome = Result { try Blocking.run { try await flow.run(agent: agent, receiver: receiver) } }
            if case .failure(let error) = outcome {
                report.failedAtNextStep(Self.describe(error))
            }
        } catch {
            outcome = .failure(error)
        }
        let succeeded = (try? outcome.get()) != nil && report.allPassed
        if json {
            let value = try? outcome.get()
            let output = DemoOutput(ok: succeeded, issuer: value?.issuer, agent: agent, testAgentAllowed: headless,
                                    subject: value?.subject, stateFile: value?.stateFile, steps: report.entries,
                                    error: outcome.failureDescription ?? report.firstFailure)
            Output.json(try output.jsonText())
        } else if succeeded, let value = try? outcome.get() {
            Output.lines("""

                Signed in as \(value.subject ?? "(no subject)"). That was the whole RFC 8252 flow: the app's own loopback \
                receiver, an external user agent, PKCE, the response and ID token checks, and a private state file.
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

    private func plugins(in catalog: PluginCatalog) throws -> (PluginAgentEntry, PluginReceiverEntry) {
        guard let entry = catalog.agent(id: agent) else {
            throw CommandFailure("no agent has the id '\(agent)'; 'eua agents' lists the agents the plugins beside "
                + "eua and on EUA_PLUGIN_PATH offer")
        }
        guard entry.descriptor.kind != .embeddedWebView else {
            throw CommandFailure("agent '\(agent)' is an embedded web view, which RFC 8252 §8.12 rules out")
        }
        guard entry.available else {
            throw CommandFailure("agent '\(agent)' is not available here: " + entry.reasons.joined(separator: "; "))
        }
        guard let receiver = catalog.receiver(id: "loopback") else {
            throw CommandFailure("no 'loopback' redirect receiver was found; is libEUALoopback.so beside eua or on "
                + "EUA_PLUGIN_PATH? (see 'eua agents')")
        }
        return (entry, receiver)
    }

    /// `--state-file`, else `auth-state.json` in a new private temporary folder.
    private func stateFileLocation() throws -> (AuthStateFile, Bool) {
        if let stateFile { return (AuthStateFile(path: stateFile), false) }
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
        var template = Array((base + "/eua-demo-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in
            mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
        }
        guard let made else {
            throw CommandFailure("could not make a temporary folder in \(base) for the demo's state file")
        }
        return (AuthStateFile(path: made + "/auth-state.json"), true)
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? ExternalUserAgentError { return "\(error.message) [\(error.code)]" }
        return "\(error)"
    }

    /// What a successful run learnt.
    struct Outcome: Sendable {
        var issuer: String
        var subject: String?
        var stateFile: String
    }
}

/// The demo's sign-in, step by step, against a server it starts and stops.
private struct DemoFlow: Sendable {
    var serverOptions: LocalAuthorizationServerOptions
    var serverPort: Int
    var timeout: Int
    var file: AuthStateFile
    var temporaryFile: Bool
    var showsForm: Bool
    var headless: Bool
    var logger: Logger
    var report: DemoReport

    func run(agent: PluginAgent, receiver: PluginReceiver) async throws -> DemoCommand.Outcome {
        let server = try await LocalAuthorizationServer.start(serverOptions, port: serverPort)
        do {
            let outcome = try await signIn(server, agent: agent, receiver: receiver)
            await server.stop()
            return outcome
        } catch {
            await server.stop()
            throw error
        }
    }

    private func signIn(_ server: LocalAuthorizationServer, agent: PluginAgent,
                        receiver: PluginReceiver) async throws -> DemoCommand.Outcome {
        let options = server.options
        let page = options.authorizationPage == .loginForm
            ? "shows a login form" : "approves at once as \(options.subject)"
        let faults = options.misbehaviors.isEmpty
            ? "" : "; misbehaving on purpose: " + options.misbehaviors.map(\.rawValue).sorted().joined(separator: ", ")
        report.passed(.server, "local authorization server listening on \(server.issuer) (in this process, "
            + "\(options.signingAlgorithm.rawValue) key made just now; /authorize \(page)\(faults))")

        let configuration = try await Discovery(logger: logger).configuration(issuer: server.issuer)
        let features = [
            configuration.codeChallengeMethodsSupported?.contains("S256") == true ? "PKCE S256" : nil,
            configuration.authorizationResponseIssParameterSupported ? "iss in responses (RFC 9207)" : nil,
        ].compactMap { $0 }
        report.passed(.discovery, "discovered \(server.issuer)/.well-known/openid-configuration: authorization, token "
            + "and JWKS endpoints" + (features.isEmpty ? "" : "; " + features.joined(separator: ", ")))

        let redirect = RedirectBox()
        let (report, headless, showsForm, subject, file, temporary) =
            (self.report, self.headless, self.showsForm, options.subject, self.file, self.temporaryFile)
        let signIn = SignIn(
            configuration: configuration, client: ClientCredentials(clientID: options.clientID),
            scopes: ["openid", "email"], timeout: .seconds(timeout), file: file, logger: logger
        ) { progress in
            switch progress {
            case .receiverStarted(let redirectURI):
                redirect.set(redirectURI)
                report.passed(.receiver, "receiver 'loopback' listening on \(redirectURI.absoluteString)")
            case .presented(let agent):
                let how = headless
                    ? "acting as a browser with no person at it (follow mode)"
                        + (showsForm ? ", filling in the server's login form as \(subject)" : "")
                    : (showsForm ? "; sign in on the server's login form there" : "")
                report.passed(.agent, "agent '\(agent.id)' (\(agent.kind.rawValue)\(headless ? ", test agent allowed for this demo" : "")) "
                    + "presented the authorization URL, \(how)")
            case .authorizationResponseAccepted(let response):
                let iss = response.issuer == nil ? "no iss sent" : "iss ok"
                report.passed(.redirect, "redirect received at \(redirect.get()?.absoluteString ?? "the receiver"): state ok, \(iss)")
            case .tokensReceived(let tokens):
                let parts = ["access token (\(tokens.tokenType)\(tokens.expiresIn.map { ", \($0) s" } ?? ""))",
                             tokens.refreshToken == nil ? nil : "refresh token", tokens.idToken == nil ? nil : "ID token"]
                report.passed(.tokens, "tokens exchanged at \(configuration.tokenEndpoint.absoluteString) for the code and "
                    + "the PKCE verifier: " + parts.compactMap { $0 }.joined(separator: ", "))
            case .idTokenValidated(let claims, let algorithm, let keyID):
                report.passed(.idToken, "ID token signature ok (\(algorithm)\(keyID.map { ", key \($0)" } ?? "") from the JWKS), "
                    + "subject \(claims.subject); iss, aud, exp, iat and nonce ok")
            case .callbackRefused(let reason):
                Output.standardError("eua demo: a request to the redirect URI was turned away, and the sign-in waits on: \(reason)\n")
            case .saved(let file):
                let mode = Self.mode(of: file.path)
                let modeText = mode.map { String($0, radix: 8) } ?? "unknown"
                let where_ = temporary ? "a new temporary folder; --state-file to choose" : "from --state-file"
                if mode == 0o600 {
                    report.passed(.state, "state saved to \(file.path), mode 0600 (\(where_))")
                } else {
                    report.failedAtNextStep("state saved to \(file.path) with mode \(modeText), not 0600")
                }
            }
        }
        let state = try await signIn.run(agent: agent, receiver: receiver)
        let claims = await state.idTokenClaims
        if claims == nil { report.failedAtNextStep("the sign-in ended without a validated ID token") }
        return DemoCommand.Outcome(issuer: server.issuer, subject: claims?.subject, stateFile: file.path)
    }

    /// The permission bits of `path`, or `nil` when it cannot be read.
    static func mode(of path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_mode & 0o777)
    }
}

/// The redirect URI, kept between progress reports.
private final class RedirectBox: Sendable {
    private let value = Mutex<URL?>(nil)
    func set(_ url: URL) { value.withLock { $0 = url } }
    func get() -> URL? { value.withLock { $0 } }
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

    init(ok: Bool, issuer: String?, agent: String, testAgentAllowed: Bool, subject: String?, stateFile: String?,
         steps: [DemoReport.Entry], error: String?) {
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
