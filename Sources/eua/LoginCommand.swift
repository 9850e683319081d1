import ArgumentParser
import ExternalUserAgent
import ExternalUserAgentOAuth
import Logging
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `eua login`: a whole OAuth 2.0 / OpenID Connect sign-in, from discovery to a saved state.
struct LoginCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign in: discovery, loopback redirect, the agent, checks, token exchange, ID token validation.",
        discussion: """
            The state (tokens and the server's configuration, never the client secret) is saved with mode 0600 \
            to --state-file, by default $XDG_STATE_HOME/eua/auth-state.json. Test agents (kind testDouble, \
            like 'headless') need EUA_ALLOW_TEST_AGENTS=1 or --allow-test-agents. The client secret may also \
            come from EUA_CLIENT_SECRET, which keeps it out of the process list.
            """
    )

    @Option(help: "The issuer identifier of the authorization server (its metadata must name it exactly).")
    var issuer: String

    @Option(help: "The client id registered with the server.")
    var clientID: String

    @Option(help: "The client secret, for a confidential client (default: $EUA_CLIENT_SECRET, else a public client).")
    var clientSecret: String?

    @Option(help: "How the client authenticates at the token endpoint with a secret: client_secret_basic or client_secret_post.")
    var clientAuth: String?

    @Option(help: "The scopes to ask for, space-separated.")
    var scope: String = "openid"

    @Option(help: "The user agent id (see 'eua agents'); default: the first available browser agent.")
    var agent: String?

    @Option(name: .customLong("agent-option"), help: ArgumentHelp("An agent option as key=value (repeatable).", valueName: "key=value"))
    var agentOptions: [String] = []

    @Option(help: "The loopback port to listen on (default: any free port).")
    var port: Int?

    @Option(help: ArgumentHelp("A range of loopback ports to try, A-B.", valueName: "A-B"))
    var portRange: String?

    @Option(help: "Seconds to wait for the sign-in to finish in the browser.")
    var timeout: Int = 300

    @Option(help: "Where to save the authorization state.")
    var stateFile: String?

    @Flag(help: "Allow test agents (kind testDouble), like EUA_ALLOW_TEST_AGENTS=1.")
    var allowTestAgents = false

    @Flag(help: "Print the token response as one JSON object on the last line (it holds the tokens).")
    var json = false

    func validate() throws {
        if port != nil, portRange != nil { throw ValidationError("give --port or --port-range, not both") }
        if let port, !(1...65535).contains(port) { throw ValidationError("--port must be 1 to 65535") }
        guard timeout > 0 else { throw ValidationError("--timeout must be a positive number of seconds") }
        for option in agentOptions where !option.contains("=") {
            throw ValidationError("--agent-option '\(option)' is not key=value")
        }
        if let clientAuth, ClientCredentials.AuthenticationMethod(rawValue: clientAuth) == nil || clientAuth == "none" {
            throw ValidationError("--client-auth must be client_secret_basic or client_secret_post")
        }
    }

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        CommandLogging.bootstrap(environment: environment)
        let logger = Logger(label: "eua.login")
        let catalog = PluginLoader(searchPath: .standard(environment: environment)).load()
        let agent = try chooseAgent(catalog, environment: environment)
        guard let receiverEntry = catalog.receiver(id: "loopback") else {
            throw CommandFailure("no 'loopback' redirect receiver was found; is libEUALoopback.so beside eua or on EUA_PLUGIN_PATH? (see 'eua agents')")
        }
        var receiverOptions: [String: String] = [:]
        if let port { receiverOptions["port"] = String(port) }
        if let portRange { receiverOptions["port-range"] = portRange }
        let receiver = receiverEntry.makeReceiver(options: receiverOptions)

        let secret = clientSecret ?? environment["EUA_CLIENT_SECRET"].flatMap { $0.isEmpty ? nil : $0 }
        let client = ClientCredentials(clientID: clientID, clientSecret: secret,
                                       authenticationMethod: clientAuth.flatMap(ClientCredentials.AuthenticationMethod.init))
        let file = stateFile.map(AuthStateFile.init(path:)) ?? AuthStateFile.standard(environment: environment)
        let scopes = scope.split(separator: " ").map(String.init)
        let (issuer, timeout, json) = (self.issuer, self.timeout, self.json)

        let outcome = try Blocking.run {
            try await CommandFailure.reporting {
                let configuration = try await Discovery(logger: logger).configuration(issuer: issuer)
                let signIn = SignIn(configuration: configuration, client: client, scopes: scopes,
                                    timeout: .seconds(timeout), file: file, logger: logger)
                let state = try await signIn.run(agent: agent, receiver: receiver)
                return (await state.lastTokenResponse, await state.idTokenClaims)
            }
        }
        guard let tokens = outcome.0 else { throw CommandFailure("the sign-in ended without tokens") }
        if json {
            print(try TokenOutput(tokens: tokens, claims: outcome.1, issuer: issuer, stateFile: file.path).jsonText())
        } else {
            let who = outcome.1.map { "as \($0.displayName)" } ?? "(no ID token)"
            print("Signed in to \(issuer) \(who).")
            print("State saved to \(file.path).")
        }
    }

    private func chooseAgent(_ catalog: PluginCatalog, environment: [String: String]) throws -> PluginAgent {
        let testAgentsAllowed = allowTestAgents || environment["EUA_ALLOW_TEST_AGENTS"] == "1"
        var options: [String: String] = [:]
        for option in agentOptions {
            let parts = option.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            options[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        let entry: PluginAgentEntry
        if let agent {
            guard let found = catalog.agent(id: agent) else {
                throw CommandFailure("no agent has the id '\(agent)'; 'eua agents' lists them")
            }
            entry = found
        } else {
            guard let found = catalog.agents.first(where: {
                $0.available && $0.descriptor.kind != .testDouble && $0.descriptor.kind != .embeddedWebView
            }) else {
                throw CommandFailure("no browser agent is available; name one with --agent (see 'eua agents')")
            }
            entry = found
        }
        guard entry.descriptor.kind != .embeddedWebView else {
            throw CommandFailure("agent '\(entry.descriptor.id)' is an embedded web view, which RFC 8252 §8.12 rules out")
        }
        guard entry.descriptor.kind != .testDouble || testAgentsAllowed else {
            throw CommandFailure("agent '\(entry.descriptor.id)' is a test agent; "
                + "set EUA_ALLOW_TEST_AGENTS=1 or pass --allow-test-agents to use it")
        }
        guard entry.available else {
            throw CommandFailure("agent '\(entry.descriptor.id)' is not available here: " + entry.reasons.joined(separator: "; "))
        }
        return entry.makeAgent(options: options)
    }
}

/// A command's failure, printed as `Error: <message>` by the argument parser.
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }

    /// Runs `work`, turning an ``ExternalUserAgentError`` into its message and code.
    static func reporting<Value: Sendable>(_ work: () async throws -> Value) async throws -> Value {
        do {
            return try await work()
        } catch let error as ExternalUserAgentError {
            throw CommandFailure("\(error.message) [\(error.code)]")
        }
    }
}

/// What `--json` prints: the token response, plus who signed in and where the state is.
struct TokenOutput: Encodable {
    var access_token: String
    var token_type: String
    var expires_in: Int?
    var refresh_token: String?
    var id_token: String?
    var scope: String?
    var issuer: String
    var subject: String?
    var state_file: String

    init(tokens: TokenResponse, claims: IDTokenClaims?, issuer: String, stateFile: String) {
        access_token = tokens.accessToken
        token_type = tokens.tokenType
        expires_in = tokens.expiresIn
        refresh_token = tokens.refreshToken
        id_token = tokens.idToken
        scope = tokens.scope
        self.issuer = issuer
        subject = claims?.subject
        state_file = stateFile
    }

    func jsonText() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
