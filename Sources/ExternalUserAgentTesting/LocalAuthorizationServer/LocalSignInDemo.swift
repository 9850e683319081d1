// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// What `eua demo` signs in to: a ``LocalAuthorizationServer`` set up from a few choices, the agent
/// options that let the headless agent play the person, and a private state file.
///
/// ```swift
/// let demo = try LocalSignInDemo(subject: "bob", loginForm: true)
/// let who = try await demo.run { server in
///     // sign in to server.issuer as LocalSignInDemo.clientID with demo.agentOptions, saving to demo.stateFile
/// }
/// ```
public struct LocalSignInDemo: Sendable {
    /// The agent that acts as a browser with no person at it (the headless plugin's follow mode).
    public static let headlessAgent = "headless"
    /// The client the server knows (a public client).
    public static let clientID = "eua-demo"

    /// The agent id the demo signs in with.
    public var agent: String
    /// How the server behaves: the login form for a real browser (or when asked), else approval at once.
    public var serverOptions: LocalAuthorizationServerOptions
    /// The server's port; 0: any free one.
    public var serverPort: Int
    /// Options for the agent: follow mode (and the form's user name) for the headless agent; none otherwise.
    public var agentOptions: [String: String]
    /// Where the state is saved.
    public var stateFile: String
    /// Whether ``stateFile`` is in a folder made for this demo.
    public var stateFileIsTemporary: Bool

    /// Sets the demo up. Without `stateFile`, makes a private folder `eua-demo-XXXXXX` in `$TMPDIR`
    /// (else `/tmp`) for `auth-state.json`, and throws ``LocalAuthorizationServerError`` when it cannot.
    public init(
        agent: String = LocalSignInDemo.headlessAgent, subject: String = "alice", loginForm: Bool = false,
        signingAlgorithm: LocalAuthorizationServerOptions.SigningAlgorithm = .rs256,
        misbehaviors: Set<LocalAuthorizationServerOptions.Misbehavior> = [], serverPort: Int = 0,
        stateFile: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        let headless = agent == Self.headlessAgent
        let showsForm = loginForm || !headless
        self.agent = agent
        serverOptions = LocalAuthorizationServerOptions(
            clientID: Self.clientID, subject: subject, authorizationPage: showsForm ? .loginForm : .autoApprove,
            signingAlgorithm: signingAlgorithm, misbehaviors: misbehaviors)
        self.serverPort = serverPort
        agentOptions = headless ? ["mode": "follow"] : [:]
        if headless, showsForm { agentOptions["form.username"] = subject }
        if let stateFile {
            self.stateFile = stateFile
            stateFileIsTemporary = false
        } else {
            self.stateFile = try Self.temporaryFolder(environment: environment) + "/auth-state.json"
            stateFileIsTemporary = true
        }
    }

    /// Whether the agent is the headless test agent.
    public var isHeadless: Bool { agent == Self.headlessAgent }

    /// Starts the server, runs `body` with it, and stops it whether `body` returns or throws.
    public func run<Value: Sendable>(_ body: (LocalAuthorizationServer) async throws -> Value) async throws -> Value {
        let server = try await LocalAuthorizationServer.start(serverOptions, port: serverPort)
        do {
            let value = try await body(server)
            await server.stop()
            return value
        } catch {
            await server.stop()
            throw error
        }
    }

    /// A new private (0700) folder in `$TMPDIR`, else `/tmp`.
    private static func temporaryFolder(environment: [String: String]) throws -> String {
        let base = environment["TMPDIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
        var template = Array((base + "/eua-demo-XXXXXX").utf8CString)
        let (made, failure) = template.withUnsafeMutableBufferPointer { buffer in
            (mkdtemp(buffer.baseAddress!).map { String(cString: $0) }, errno)
        }
        guard let made else {
            let reason = String(cString: strerror(failure))
            throw LocalAuthorizationServerError(
                "could not make a temporary folder in \(base) for the demo's state file "
                    + "(\(reason)); set TMPDIR to a folder you can write, or choose the state file")
        }
        return made
    }
}
