// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import ExternalUserAgentCore
import ExternalUserAgentSystem
import Synchronization

/// The child side of an ``IsolatedAgent``: `eua-signin-service --agent-step PARENT` (not for people: the service
/// starts it). Reads one ``AgentStepWire/Request`` on stdin, loads only that plugin file (the loader's own checks and
/// deadlines), runs its agent and writes one ``AgentStepWire/Event`` line per event on stdout; a `dismiss` line or
/// the end of stdin ends it. It dies with the service (`PR_SET_PDEATHSIG`) and holds no secret: the service keeps the
/// receiver, the `state`, the PKCE verifier and the tokens.
enum AgentStep {
    /// How long the request may take to arrive.
    static let requestTimeout: Duration = .seconds(10)

    /// Runs the step for the service whose pid is `parentText`; never returns.
    static func main(parent parentText: String) -> Never {
        let (control, events) = begin(parent: parentText, as: "--agent-step")
        let output = EventOutput(descriptor: events)

        guard let line = firstLine(from: control, until: .now + requestTimeout) else {
            output.send(
                .failed(
                    code: "presentationFailed",
                    message: "the agent step got no request from the "
                        + "service within \(requestTimeout)"))
            exit(0)
        }
        guard let request = AgentStepWire.Request(line: Array(line.utf8)) else {
            output.send(.failed(code: "presentationFailed", message: "the agent step got a request it cannot read"))
            exit(0)
        }
        Task {
            await run(request, control: control, output: output)
            exit(0)
        }
        dispatchMain()
    }

    /// The start of a child of the service (an agent step, a plugin check) run as `ROLE PARENT`: it dies with the
    /// service (`PR_SET_PDEATHSIG`; a service that ended before that is seen by `getppid()`), and the service's
    /// descriptors move out of 0 and 1 — close-on-exec, so a browser the agent starts does not hold them — while fd 1
    /// becomes stderr, since a plugin's stray output must not pass for a line to the service. Returns the descriptors
    /// from and to the service.
    static func begin(parent parentText: String, as role: String) -> (control: Int32, output: Int32) {
        guard let parent = pid_t(parentText), parent > 1 else {
            Log.error("\(role) is for the service's own use (it is given its pid)")
            exit(2)
        }
        let setParentDeathSignal: Int32 = 1  // PR_SET_PDEATHSIG
        _ = prctl?(setParentDeathSignal, UInt(SIGKILL), 0, 0, 0)
        guard getppid() == parent else { exit(3) }
        let control = fcntl(0, F_DUPFD_CLOEXEC, 3)
        let output = fcntl(1, F_DUPFD_CLOEXEC, 3)
        guard control >= 0, output >= 0 else { exit(4) }
        let null = open("/dev/null", O_RDONLY)
        if null >= 0 {
            dup2(null, 0)
            close(null)
        }
        dup2(2, 1)
        return (control, output)
    }

    /// The first line `descriptor` gives before `deadline`, or `nil`.
    static func firstLine(from descriptor: Int32, until deadline: ContinuousClock.Instant) -> String? {
        var lines = LineBuffer()
        while true {
            guard !pollInput([descriptor], until: deadline).isEmpty, let bytes = readAvailable(descriptor),
                !bytes.isEmpty,
                let complete = lines.add(bytes)
            else { return nil }
            if let first = complete.first { return first }
        }
    }

    /// Loads the plugin, shows the URL with its agent and reports; ends on `dismiss`, the end of stdin or the
    /// session's end.
    private static func run(_ request: AgentStepWire.Request, control: Int32, output: EventOutput) async {
        var catalog = PluginCatalog()
        PluginLoader().load(file: request.plugin, into: &catalog)
        guard let entry = catalog.agent(id: request.agent) else {
            let why = catalog.failures.map(\.description).joined(separator: "; ")
            output.send(
                .failed(
                    code: "presentationFailed",
                    message: "the plugin \(request.plugin) offers no agent "
                        + "'\(request.agent)' any more\(why.isEmpty ? "" : ": \(why)"); see the service's log"))
            return
        }
        guard let url = URL(string: request.url), let redirectURI = URL(string: request.redirectURI) else {
            output.send(.failed(code: "presentationFailed", message: "the agent step got a URL it cannot read"))
            return
        }
        let timeout = request.timeout.flatMap {
            (0...86_400).contains($0) ? Duration.milliseconds(Int64($0 * 1000)) : nil
        }
        let session = ExternalUserAgentSession(
            agent: ReportingAgent(entry.makeAgent(options: request.options), output: output),
            receiver: GivenRedirect(redirectURI: redirectURI),
            // The service's own deadline ends the sign-in first; this one only ends a step that outlived it.
            configuration: .init(expectedState: nil, timeout: timeout.map { $0 + .seconds(5) }))
        // `dismiss` or the end of stdin (the service ended it, or is gone) cancels the session.
        let watch = try? BlockingCall.start(name: "eua-step-input") {
            var lines = LineBuffer()
            let end = ContinuousClock.now + (timeout ?? .seconds(300)) + .seconds(60)
            while !pollInput([control], until: end).isEmpty {
                guard let bytes = readAvailable(control), !bytes.isEmpty, let complete = lines.add(bytes) else { break }
                if complete.contains(AgentStepWire.dismiss) { break }
            }
            session.cancel(by: .program, message: "the service ended the agent")
        }
        _ = watch
        do {
            let callback = try await session.run { _ in url }
            output.send(.redirect(callback.absoluteString))
        } catch let error as ExternalUserAgentError {
            output.send(.failed(code: "\(error.code)", message: error.message))
        } catch {
            output.send(.failed(code: "presentationFailed", message: "\(error)"))
        }
    }

    private typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32

    /// glibc's `prctl`, which Swift does not import (a C variadic function).
    private static let prctl: Prctl? = dlsym(nil, "prctl").map { unsafeBitCast($0, to: Prctl.self) }
}

/// Event lines to the service, one writer at a time.
private final class EventOutput: Sendable {
    private let descriptor: Mutex<Int32>

    init(descriptor: Int32) { self.descriptor = Mutex(descriptor) }

    func send(_ event: AgentStepWire.Event) {
        descriptor.withLock { descriptor in _ = writeAll(event.line, to: descriptor) }
    }
}

/// The plugin's agent, reporting `presented` once it has shown the URL.
private struct ReportingAgent: ExternalUserAgent {
    let inner: any ExternalUserAgent
    let output: EventOutput

    init(_ inner: any ExternalUserAgent, output: EventOutput) { (self.inner, self.output) = (inner, output) }

    var descriptor: AgentDescriptor { inner.descriptor }

    func present(_ request: AgentRequest, session: ExternalUserAgentSession) async throws {
        try await inner.present(request, session: session)
        output.send(.presented)
    }

    func dismiss() async { await inner.dismiss() }
}

/// The service's redirect URI, handed over as it is: the service's receiver gets the callback.
private struct GivenRedirect: RedirectReceiver {
    let redirectURI: URL

    var id: String { "service" }

    func start(_ request: ReceiverRequest, session: ExternalUserAgentSession) async throws -> URL { redirectURI }

    func stop() async {}
}
