// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentRules
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// One sign-in flow: ties an agent and a redirect receiver together and owns the rules.
///
/// The counterpart of AppAuth's `OIDExternalUserAgentSession`, with its gaps closed:
/// - it completes exactly once; a later redirect is an `alreadyCompleted` error value, never a crash;
/// - a callback URL whose scheme, host, port or path differ from the redirect URI, or whose `state`
///   is missing, repeated or wrong, is rejected and the flow goes on waiting;
/// - `cancel(by:)` fails the flow with `userCanceled` or `programCanceled` and dismisses the agent;
/// - cancelling the `Task` that runs `run` cancels the session; a timeout is `timedOut`.
public final class ExternalUserAgentSession: Sendable {
    /// Who cancelled a session.
    public enum Canceller: Sendable {
        /// The person (closed the browser, pressed Ctrl-C, said no).
        case user
        /// The app.
        case program
    }

    /// How a session behaves.
    public struct Configuration: Sendable {
        /// The `state` every callback must carry; `nil` skips the check (the caller checks it).
        public var expectedState: String?
        /// How long to wait for the callback after presenting; `nil` waits until cancelled.
        public var timeout: Duration?
        /// Called with the reason each time a request or callback is turned away while the flow waits on
        /// (wrong `state`, wrong path, malformed request…); it must return quickly.
        public var onRefused: (@Sendable (String) -> Void)?
        /// What the request is for, told to the agent (``AgentRequest/purpose``).
        public var purpose: AgentRequest.Purpose
        /// A form the receiver serves once (``ReceiverRequest/handOff``); the URL builder then returns the
        /// receiver's one-time URL (``HandOffForm/url(on:)``).
        public var handOff: HandOffForm?

        /// Rules for one session: the `state` a callback must carry (`nil`: not checked here) and how long it may take (`nil`: no limit).
        public init(
            expectedState: String? = nil, timeout: Duration? = .seconds(300),
            onRefused: (@Sendable (String) -> Void)? = nil, purpose: AgentRequest.Purpose = .signIn,
            handOff: HandOffForm? = nil
        ) {
            self.handOff = handOff
            self.expectedState = expectedState
            self.timeout = timeout
            self.onRefused = onRefused
            self.purpose = purpose
        }
    }

    private struct State {
        var started = false
        var refused = 0
        var redirectURI: URL?
        var outcome: Result<URL, ExternalUserAgentError>?
        var waiter: CheckedContinuation<URL, any Error>?
    }

    /// The agent that shows the URL.
    public let agent: any ExternalUserAgent
    /// The receiver that provides the redirect URI.
    public let receiver: any RedirectReceiver
    /// The session's rules: expected `state` and timeout.
    public let configuration: Configuration
    private let state = Mutex(State())

    /// A session that presents with `agent` and waits on `receiver`, under `configuration`.
    public init(agent: any ExternalUserAgent, receiver: any RedirectReceiver, configuration: Configuration = .init()) {
        self.agent = agent
        self.receiver = receiver
        self.configuration = configuration
    }

    /// The redirect URI, once the receiver has started.
    public var redirectURI: URL? { state.withLock { $0.redirectURI } }

    /// Whether the session has its outcome.
    public var isCompleted: Bool { state.withLock { $0.outcome != nil } }

    /// How many requests and callbacks were turned away while the flow waited (a stray or hostile
    /// request never ends a sign-in; this counts them).
    public var refusedCount: Int { state.withLock { $0.refused } }

    /// Records a request that a receiver turned away on its own (`reason`: fixed text, never request
    /// data, since it may carry a code). The session goes on waiting.
    public func noteRefused(_ reason: String) {
        state.withLock { $0.refused += 1 }
        configuration.onRefused?(reason)
    }

    /// Runs the flow once: starts the receiver, builds the authorization URL for its redirect URI,
    /// presents it, and returns the callback URL that completed the session.
    ///
    /// Whatever the outcome, the agent is dismissed and the receiver stopped before this returns.
    /// Throws ``ExternalUserAgentError``.
    public func run(authorizationURL: @Sendable (URL) async throws -> URL) async throws -> URL {
        let firstRun = state.withLock { state -> Bool in
            defer { state.started = true }
            return !state.started
        }
        guard firstRun else {
            throw ExternalUserAgentError(
                .alreadyCompleted, "this session has already run; make a new session for a new flow")
        }
        return try await withTaskCancellationHandler {
            try await runOnce(authorizationURL: authorizationURL)
        } onCancel: {
            cancel(by: .program, message: "the sign-in was cancelled because the Task running it was cancelled")
        }
    }

    private func runOnce(authorizationURL: @Sendable (URL) async throws -> URL) async throws -> URL {
        let redirectURI: URL
        do {
            redirectURI = try await receiver.start(
                ReceiverRequest(
                    expectedState: configuration.expectedState, timeout: configuration.timeout,
                    handOff: configuration.handOff),
                session: self)
        } catch {
            await cleanUp(dismissing: false)
            throw finish(Self.wrap(error, as: .receiverFailed, "redirect receiver '\(receiver.id)' could not start"))
        }
        state.withLock { $0.redirectURI = redirectURI }

        let url: URL
        do {
            url = try await authorizationURL(redirectURI)
        } catch {
            await cleanUp(dismissing: false)
            throw finish(Self.wrap(error, as: .invalidOptions, "the authorization URL could not be built"))
        }

        let timer = configuration.timeout.map { timeout in
            Task { [weak self] in
                try await Task.sleep(for: timeout)
                guard let self else { return }
                let refused = self.refusedCount
                let turnedAway =
                    refused == 0
                    ? ""
                    : " (\(refused) request\(refused == 1 ? " was" : "s were") turned away: "
                        + "wrong state, path or form — see the log)"
                self.complete(
                    .failure(
                        ExternalUserAgentError(
                            .timedOut,
                            "no callback reached \(redirectURI.absoluteString) within \(timeout)\(turnedAway); "
                                + "finish the \(self.configuration.purpose == .signOut ? "sign-out" : "sign-in") sooner or raise the timeout"
                        )))
            }
        }
        let agent = self.agent
        let request = AgentRequest(
            url: url, redirectURI: redirectURI, timeout: configuration.timeout,
            purpose: configuration.purpose)
        let presenting = Task {
            do {
                try await agent.present(request, session: self)
            } catch {
                self.fail(
                    with: Self.wrap(
                        error, as: .presentationFailed,
                        "agent '\(agent.descriptor.id)' could not present the authorization URL"))
            }
        }

        let outcome = await waitForOutcome()
        timer?.cancel()
        presenting.cancel()
        await cleanUp(dismissing: true)
        return try outcome.get()
    }

    /// Dismisses the agent (when it was asked to present) and stops the receiver, in a task of its own:
    /// a cancelled caller must not cut the clean-up short.
    private func cleanUp(dismissing: Bool) async {
        let agent = self.agent
        let receiver = self.receiver
        await Task {
            if dismissing { await agent.dismiss() }
            await receiver.stop()
        }.value
    }

    /// Ends the session with `error` unless it already has an outcome; returns the outcome's error.
    private func finish(_ error: ExternalUserAgentError) -> ExternalUserAgentError {
        complete(.failure(error))
        return state.withLock { state in
            if case .failure(let outcome) = state.outcome { return outcome }
            return error
        }
    }

    private func waitForOutcome() async -> Result<URL, ExternalUserAgentError> {
        do {
            let url = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<URL, any Error>) in
                let ready = state.withLock { state -> Result<URL, ExternalUserAgentError>? in
                    if let outcome = state.outcome { return outcome }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
            return .success(url)
        } catch let error as ExternalUserAgentError {
            return .failure(error)
        } catch {
            return .failure(Self.wrap(error, as: .presentationFailed, "the session failed"))
        }
    }

    /// Hands a callback URL to the session.
    ///
    /// Completes the session when `url` matches the redirect URI and carries the expected `state`.
    /// Otherwise throws ``ExternalUserAgentError`` — `redirectMismatch`, `stateMismatch`, `notStarted`
    /// or `alreadyCompleted` — and the session goes on as before.
    public func resume(with url: URL) throws {
        let result = state.withLock { state -> Result<CheckedContinuation<URL, any Error>?, ExternalUserAgentError> in
            if state.outcome != nil {
                return .failure(
                    ExternalUserAgentError(
                        .alreadyCompleted, "a callback arrived after the sign-in had already completed; it was ignored")
                )
            }
            guard let redirectURI = state.redirectURI else {
                return .failure(
                    ExternalUserAgentError(
                        .notStarted, "a callback arrived before the session had a redirect URI; start the session first"
                    ))
            }
            if let mismatch = RedirectURIMatch.mismatch(callback: url, redirectURI: redirectURI) {
                return .failure(
                    ExternalUserAgentError(
                        .redirectMismatch, "callback rejected: \(mismatch); the session goes on waiting"))
            }
            if let expected = configuration.expectedState, let problem = Self.stateProblem(in: url, expected: expected)
            {
                return .failure(
                    ExternalUserAgentError(
                        .stateMismatch, "callback rejected: \(problem); the session goes on waiting"))
            }
            state.outcome = .success(url)
            defer { state.waiter = nil }
            return .success(state.waiter)
        }
        switch result {
        case .failure(let error):
            if error.code == .redirectMismatch || error.code == .stateMismatch { noteRefused(error.message) }
            throw error
        case .success(let waiter): waiter?.resume(returning: url)
        }
    }

    /// Ends the session with `error`. Returns `false` when it had already completed.
    @discardableResult
    public func fail(with error: ExternalUserAgentError) -> Bool {
        complete(.failure(error))
    }

    /// Cancels the session: it fails with `userCanceled` or `programCanceled`, and `run` then
    /// dismisses the agent and stops the receiver. Returns `false` when it had already completed.
    @discardableResult
    public func cancel(by canceller: Canceller = .program, message: String? = nil) -> Bool {
        switch canceller {
        case .user:
            complete(.failure(ExternalUserAgentError(.userCanceled, message ?? "the person cancelled the sign-in")))
        case .program:
            complete(.failure(ExternalUserAgentError(.programCanceled, message ?? "the app cancelled the sign-in")))
        }
    }

    @discardableResult
    private func complete(_ outcome: Result<URL, ExternalUserAgentError>) -> Bool {
        let waiter = state.withLock { state -> CheckedContinuation<URL, any Error>?? in
            guard state.outcome == nil else { return .none }
            state.outcome = outcome
            defer { state.waiter = nil }
            return .some(state.waiter)
        }
        guard let waiter else { return false }
        waiter?.resume(with: outcome.mapError { $0 as any Error })
        return true
    }

    /// Why `url`'s `state` is not acceptable, or `nil` when it is exactly `expected`.
    package static func stateProblem(in url: URL, expected: String) -> String? {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        let states = items.filter { $0.name == "state" }
        switch states.count {
        case 0: return "it has no 'state' parameter"
        case 1: return states[0].value == expected ? nil : "its 'state' parameter does not match this sign-in's"
        default: return "its 'state' parameter is repeated"
        }
    }

    static func wrap(_ error: any Error, as code: ExternalUserAgentError.Code, _ context: String)
        -> ExternalUserAgentError
    {
        if let error = error as? ExternalUserAgentError { return error }
        if error is CancellationError {
            return ExternalUserAgentError(.programCanceled, "\(context): cancelled")
        }
        return ExternalUserAgentError(code, "\(context): \(error)", underlying: error)
    }
}
