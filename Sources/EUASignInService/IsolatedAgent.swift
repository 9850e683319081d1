// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import ExternalUserAgentCore
import ExternalUserAgentSystem
import Synchronization

/// A plugin's agent run in a child process of its own (`eua-signin-service --agent-step`), so that a plugin that
/// crashes ends only that child and fails only its sign-in (``AgentStep`` is the child's side, ``AgentStepWire`` the
/// lines between them).
///
/// The receiver, the state check, the PKCE verifier, the token exchange and the tokens stay in the service: the child
/// gets the authorization URL and the redirect URI, nothing else. An agent that sees the redirect itself sends it
/// back and the service's session checks it (`session.resume(with:)`), as for an agent in the service's process.
final class IsolatedAgent: ExternalUserAgent {
    let descriptor: AgentDescriptor
    private let entry: PluginAgentEntry
    private let options: [String: String]
    /// The program the child runs: the service's own file.
    private let executable: String
    /// How long `dismiss()` waits for the child to end before it is killed.
    private let dismissGrace: Duration
    private let running = Mutex<Running?>(nil)

    /// The most of the child's stderr passed on to the service's stderr; the rest is read and dropped.
    static let maximumErrors = 64 * 1024

    /// One child: its process, the descriptor the service writes to, and the thread reading its events.
    private final class Running: Sendable {
        let child: ChildProcess
        let control: Int32
        let reader = Mutex<BlockingCall<Void>?>(nil)
        /// Set when the service ended the child (dismiss, deadline): its death is no plugin failure then.
        let ended = Mutex(false)

        init(child: ChildProcess, control: Int32) {
            (self.child, self.control) = (child, control)
        }
    }

    /// The agent of `entry`, with `options`, in a child running `executable`.
    init(
        entry: PluginAgentEntry, options: [String: String], executable: String = "/proc/self/exe",
        dismissGrace: Duration = .seconds(5)
    ) {
        self.entry = entry
        self.descriptor = entry.descriptor
        self.options = options
        self.executable = executable
        self.dismissGrace = dismissGrace
    }

    /// Starts the child, hands it the request and waits until it says the URL is shown (or fails, or dies), within
    /// `request.timeout` when given.
    func present(_ request: AgentRequest, session: ExternalUserAgentSession) async throws {
        let label = "agent '\(descriptor.id)' (\(entry.plugin.path))"
        let line: String
        do {
            line = try AgentStepWire.Request(
                plugin: entry.plugin.path, agent: descriptor.id, options: options, url: request.url.absoluteString,
                redirectURI: request.redirectURI.absoluteString, timeout: request.timeout.map(Self.seconds)
            ).line()
        } catch {
            throw ExternalUserAgentError(.presentationFailed, "\(label): the request could not be written: \(error)")
        }
        let presented = Presented()
        let path = entry.plugin.path
        // Where events go: the first `presented` or `failed` answers present(); later ones go to the session.
        let deliver: @Sendable (Result<Void, ExternalUserAgentError>) -> Void = { result in
            if !presented.fulfill(result), case .failure(let error) = result { session.fail(with: error) }
        }
        let started = try start(line: line, timeout: request.timeout, label: label) { event in
            switch event {
            case .presented: deliver(.success(()))
            case .redirect(let text):
                guard let url = URL(string: text) else {
                    Log.error("\(label) sent a redirect that is no URL; ignored")
                    return
                }
                do { try session.resume(with: url) } catch {
                    Log.error("the session refused the redirect of \(label): \(error)")
                }
            case .failed(let code, let message):
                deliver(
                    .failure(
                        ExternalUserAgentError(
                            ExternalUserAgentError.Code(name: code) ?? .presentationFailed,
                            message)))
            }
        } ended: { status, read, byService in
            if byService {
                presented.fulfill(
                    .failure(ExternalUserAgentError(.programCanceled, "\(label) was ended by the service")))
            } else if let signal = ChildProcess.signal(of: status), read == .ended(final: false) {
                deliver(
                    .failure(
                        ExternalUserAgentError(
                            .presentationFailed,
                            "the agent plugin \(path) crashed (\(ChildProcess.name(ofSignal: signal))) while showing the "
                                + "sign-in page; report it to its author, or remove it from the plugin path")))
            } else if read == .ended(final: false) {
                deliver(
                    .failure(
                        ExternalUserAgentError(
                            .presentationFailed,
                            "the agent plugin \(path) ended (exit status \(ChildProcess.exitCode(of: status) ?? -1)) without "
                                + "saying how the sign-in went; see the service's log, or choose another agent")))
            } else if read == .timedOut || read == .lineTooLong {
                deliver(
                    .failure(
                        ExternalUserAgentError(
                            .presentationFailed,
                            read == .timedOut
                                ? "\(label) outlived the sign-in's time limit and was killed; choose another agent"
                                : "\(label) wrote a line longer than \(AgentStepWire.maximumLine) bytes and was killed; "
                                    + "report it to its author, or choose another agent")))
            } else {
                // Its last event was read: only a present() still waiting is answered.
                presented.fulfill(.failure(ExternalUserAgentError(.presentationFailed, "\(label) ended")))
            }
        }
        let deadline = request.timeout.map { timeout in
            Task {
                try await Task.sleep(for: timeout)
                presented.fulfill(
                    .failure(
                        ExternalUserAgentError(
                            .timedOut,
                            "\(label) did not say it had shown the URL within \(Self.seconds(timeout)) s, so it was ended; "
                                + "give it more time or choose another agent",
                            remedies: [.allowMoreTime, .chooseAgent])))
            }
        }
        defer { deadline?.cancel() }
        do {
            try await presented.value()
        } catch let error as ExternalUserAgentError where error.code == .timedOut {
            end(started)
            throw error
        }
    }

    /// Asks the child to end (a `dismiss` line), waits up to ``dismissGrace`` for it, then kills it.
    func dismiss() async {
        guard let started = running.withLock({ $0 }), let reader = started.reader.withLock({ $0 }) else { return }
        end(started)
        if case .returned = await reader.value(until: .now + dismissGrace) { return }
        started.child.kill()
        _ = await reader.value(until: .now + .seconds(5))
    }

    /// Marks the child as ended by the service and sends it `dismiss` (and the end of its input).
    private func end(_ started: Running) {
        let first = started.ended.withLock { ended in
            defer { ended = true }
            return !ended
        }
        guard first else { return }
        writeAll(AgentStepWire.dismiss + "\n", to: started.control)
        shutdown(started.control, Int32(SHUT_WR))
    }

    /// Starts the child with `line` as its request and a thread reading its events (passed to `onEvent`) until it
    /// ends, or until `timeout` (five minutes without one) and 30 s more; `ended` gets the wait status of the child,
    /// how reading ended, and whether the service ended it (`dismiss()`, present's deadline).
    private func start(
        line: String, timeout: Duration?, label: String, onEvent: @escaping @Sendable (AgentStepWire.Event) -> Void,
        ended: @escaping @Sendable (Int32, ReadEnd, Bool) -> Void
    ) throws -> Running {
        func failure(_ what: String, _ cause: SpawnFailure) -> ExternalUserAgentError {
            ExternalUserAgentError(
                .presentationFailed,
                "\(label) could not be started: \(what): \(cause); see the "
                    + "service's log (its limits on processes and open files)")
        }
        let control: (Int32, Int32)
        let events: (Int32, Int32)
        let errors: (Int32, Int32)
        switch ChildProcess.socketPair() {
        case .success(let ends): control = ends
        case .failure(let cause): throw failure("no socket pair", cause)
        }
        switch ChildProcess.socketPair() {
        case .success(let ends): events = ends
        case .failure(let cause):
            close(control.0)
            close(control.1)
            throw failure("no socket pair", cause)
        }
        switch ChildProcess.socketPair() {
        case .success(let ends): errors = ends
        case .failure(let cause):
            for descriptor in [control.0, control.1, events.0, events.1] { close(descriptor) }
            throw failure("no socket pair", cause)
        }
        let spawned = ChildProcess.spawn(
            [executable, "--agent-step", String(getpid())],
            input: .descriptor(control.1), output: .descriptor(events.1), errors: .descriptor(errors.1),
            environment: ["SWIFT_BACKTRACE": "enable=no"])
        for descriptor in [control.1, events.1, errors.1] { close(descriptor) }
        let child: ChildProcess
        switch spawned {
        case .success(let started): child = started
        case .failure(let cause):
            for descriptor in [control.0, events.0, errors.0] { close(descriptor) }
            throw failure("posix_spawn \(executable)", cause)
        }
        writeAll(line, to: control.0)
        // The child runs at most as long as the sign-in may, plus time to start and to end.
        let deadline = ContinuousClock.now + (timeout ?? .seconds(300)) + .seconds(30)
        let started = Running(child: child, control: control.0)
        let grace = dismissGrace
        do {
            let reader = try BlockingCall.start(name: "eua-agent-step") {
                let read = Self.read(
                    events: events.0, errors: errors.0, until: deadline, label: label, onEvent: onEvent)
                // A child whose output ended is ending; one past its deadline or writing too long a line is killed.
                let (status, _) = child.reap(until: read == .timedOut || read == .lineTooLong ? .now : .now + grace)
                close(events.0)
                close(errors.0)
                ended(status, read, started.ended.withLock { $0 })
            }
            started.reader.withLock { $0 = reader }
        } catch {
            child.kill()
            _ = child.reap(until: .now)
            for descriptor in [control.0, events.0, errors.0] { close(descriptor) }
            throw ExternalUserAgentError(.presentationFailed, "\(label) could not be started: \(error)")
        }
        running.withLock { $0 = started }
        return started
    }

    /// How reading a child's events ended.
    enum ReadEnd: Equatable {
        /// The output ended, after a last event (`redirect`, `failed`) or without one.
        case ended(final: Bool)
        case timedOut
        case lineTooLong
    }

    /// Reads the child's events (to `onEvent`) and stderr until its events end or `deadline`. The first
    /// ``maximumErrors`` bytes of its stderr go to the service's stderr.
    private static func read(
        events: Int32, errors: Int32, until deadline: ContinuousClock.Instant, label: String,
        onEvent: @Sendable (AgentStepWire.Event) -> Void
    ) -> ReadEnd {
        var lines = LineBuffer()
        var passed = 0
        var open = [events, errors]
        var final = false
        while open.contains(events) {
            let ready = pollInput(open, until: deadline)
            if ready.isEmpty { return .timedOut }
            for descriptor in ready {
                guard let bytes = readAvailable(descriptor), !bytes.isEmpty else {
                    open.removeAll { $0 == descriptor }
                    continue
                }
                if descriptor == errors {
                    let kept = bytes.prefix(max(0, maximumErrors - passed))
                    passed += kept.count
                    if !kept.isEmpty { kept.withUnsafeBufferPointer { _ = write(2, $0.baseAddress, $0.count) } }
                    continue
                }
                guard let complete = lines.add(bytes) else {
                    Log.error("\(label) wrote a line longer than \(AgentStepWire.maximumLine) bytes; it is ended")
                    return .lineTooLong
                }
                for line in complete {
                    guard let event = AgentStepWire.Event(line: line) else {
                        Log.error("\(label) sent a line that is no event; ignored")
                        continue
                    }
                    if case .presented = event {} else { final = true }
                    onEvent(event)
                }
            }
        }
        return .ended(final: final)
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// The answer to `present`: set once, by the first of `presented`, `failed`, the child's end and the deadline.
private final class Presented: Sendable {
    private struct State {
        var result: Result<Void, ExternalUserAgentError>?
        var waiter: CheckedContinuation<Void, any Error>?
    }

    private let state = Mutex(State())

    /// Sets the answer; `false` when one was set already.
    @discardableResult
    func fulfill(_ result: Result<Void, ExternalUserAgentError>) -> Bool {
        let (first, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Void, any Error>?) in
            guard state.result == nil else { return (false, nil) }
            state.result = result
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume(with: result.mapError { $0 as any Error })
        return first
    }

    /// The answer, once set.
    func value() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let ready = state.withLock { state -> Result<Void, ExternalUserAgentError>? in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready.mapError { $0 as any Error }) }
        }
    }
}
