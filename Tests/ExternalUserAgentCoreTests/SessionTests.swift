// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import ExternalUserAgentTesting
import Foundation
import Testing

/// The session's rules, each run against the in-process fake agent and the headless plugin (dlopen).
@Suite("Session rules", .timeLimit(.minutes(1)))
struct SessionTests {
    static let state = "s-8f1c2a"

    static func authorizationURL(_ redirect: URL) -> URL {
        var components = URLComponents(string: "https://as.example/authorize")!
        components.queryItems = [
            URLQueryItem(name: "client_id", value: "app"),
            URLQueryItem(name: "redirect_uri", value: redirect.absoluteString),
            URLQueryItem(name: "state", value: state),
        ]
        return components.url!
    }

    func makeSession(
        _ backend: SessionBackend, _ script: SessionBackend.Script,
        timeout: Duration? = .seconds(20)
    ) throws -> (ExternalUserAgentSession, FakeRedirectReceiver) {
        let receiver = FakeRedirectReceiver()
        let session = ExternalUserAgentSession(
            agent: try backend.agent(script), receiver: receiver,
            configuration: .init(expectedState: Self.state, timeout: timeout))
        return (session, receiver)
    }

    func run(_ session: ExternalUserAgentSession) async -> Result<URL, ExternalUserAgentError> {
        do {
            return .success(try await session.run { Self.authorizationURL($0) })
        } catch let error as ExternalUserAgentError {
            return .failure(error)
        } catch {
            Issue.record("run threw a foreign error: \(error)")
            return .failure(ExternalUserAgentError(.presentationFailed, "foreign"))
        }
    }

    @Test("a redirect completes the session; agent dismissed, receiver stopped", arguments: SessionBackend.allCases)
    func completes(_ backend: SessionBackend) async throws {
        let (session, receiver) = try makeSession(
            backend, .redirect(parameters: ["code": "abc", "iss": "https://as.example"]))
        let url = try await run(session).get()
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)!.queryItems!
        #expect(items.first { $0.name == "code" }?.value == "abc")
        #expect(items.first { $0.name == "state" }?.value == Self.state)
        #expect(items.first { $0.name == "iss" }?.value == "https://as.example")
        #expect(url.path == "/callback")
        #expect(receiver.record.stopCount == 1)
        #expect(receiver.record.requests.first?.expectedState == Self.state)
        #expect(session.isCompleted)
    }

    @Test("a second redirect is an alreadyCompleted error value", arguments: SessionBackend.allCases)
    func secondRedirect(_ backend: SessionBackend) async throws {
        let (session, receiver) = try makeSession(backend, .redirect(count: 2))
        let first = try await run(session).get()
        #expect(throws: ExternalUserAgentError.self) { try receiver.deliver(first) }
        do {
            try session.resume(with: first)
            Issue.record("a second redirect was accepted")
        } catch let error as ExternalUserAgentError {
            #expect(error.code == .alreadyCompleted)
        }
    }

    @Test(
        "a callback that does not match the redirect URI is rejected and the flow goes on",
        arguments: SessionBackend.allCases)
    func mismatchDoesNotEnd(_ backend: SessionBackend) async throws {
        let (session, receiver) = try makeSession(backend, .neverAnswers)
        let running = Task { await run(session) }
        while session.redirectURI == nil { try await Task.sleep(for: .milliseconds(5)) }
        let wrong: [(String, ExternalUserAgentError.Code)] = [
            ("https://127.0.0.1:49152/callback?code=x&state=\(Self.state)", .redirectMismatch),  // scheme
            ("http://127.0.0.2:49152/callback?code=x&state=\(Self.state)", .redirectMismatch),  // host
            ("http://127.0.0.1:49153/callback?code=x&state=\(Self.state)", .redirectMismatch),  // port
            ("http://127.0.0.1:49152/callbackX?code=x&state=\(Self.state)", .redirectMismatch),  // path
            ("http://127.0.0.1:49152/callback?code=x", .stateMismatch),  // no state
            ("http://127.0.0.1:49152/callback?code=x&state=other", .stateMismatch),  // wrong state
            // repeated
            ("http://127.0.0.1:49152/callback?code=x&state=\(Self.state)&state=\(Self.state)", .stateMismatch),
        ]
        for (text, code) in wrong {
            do {
                try receiver.deliver(URL(string: text)!)
                Issue.record("accepted \(text)")
            } catch let error as ExternalUserAgentError {
                #expect(error.code == code, "\(text): \(error)")
                #expect(!error.message.contains("code=x"), "the message must not echo the callback's code")
            }
            #expect(!session.isCompleted)
        }
        let right = URL(string: "http://127.0.0.1:49152/callback?code=ok&state=\(Self.state)&extra=1")!
        try receiver.deliver(right)
        #expect(try await running.value.get() == right)
    }

    @Test("an agent redirect with the wrong state does not end the flow", arguments: SessionBackend.allCases)
    func wrongStateFromAgent(_ backend: SessionBackend) async throws {
        let (session, receiver) = try makeSession(backend, .redirect(parameters: ["state": "forged"]))
        let running = Task { await run(session) }
        try await Task.sleep(for: .milliseconds(300))
        #expect(!session.isCompleted)
        try receiver.deliver(URL(string: "http://127.0.0.1:49152/callback?code=ok&state=\(Self.state)")!)
        _ = try await running.value.get()
    }

    @Test("cancel() fails the flow with who cancelled, and dismisses", arguments: SessionBackend.allCases)
    func cancelByProgramAndUser(_ backend: SessionBackend) async throws {
        for canceller in [ExternalUserAgentSession.Canceller.program, .user] {
            let (session, receiver) = try makeSession(backend, .neverAnswers)
            let running = Task { await run(session) }
            while session.redirectURI == nil { try await Task.sleep(for: .milliseconds(5)) }
            #expect(session.cancel(by: canceller))
            #expect(!session.cancel(by: canceller), "a second cancel is a no-op")
            let error = try #require(await running.value.failure)
            #expect(error.code == (canceller == .user ? .userCanceled : .programCanceled))
            #expect(receiver.record.stopCount == 1)
        }
    }

    @Test("cancelling the Task cancels the session", arguments: SessionBackend.allCases)
    func taskCancellation(_ backend: SessionBackend) async throws {
        let (session, receiver) = try makeSession(backend, .neverAnswers)
        let running = Task { await run(session) }
        while session.redirectURI == nil { try await Task.sleep(for: .milliseconds(5)) }
        running.cancel()
        let error = try #require(await running.value.failure)
        #expect(error.code == .programCanceled)
        #expect(error.message.contains("Task"))
        #expect(receiver.record.stopCount == 1)
    }

    @Test("a timeout is its own error", arguments: SessionBackend.allCases)
    func timeout(_ backend: SessionBackend) async throws {
        let (session, receiver) = try makeSession(backend, .neverAnswers, timeout: .milliseconds(200))
        let error = try #require(await run(session).failure)
        #expect(error.code == .timedOut)
        #expect(error.message.contains("127.0.0.1:49152"))
        #expect(receiver.record.stopCount == 1)
    }

    @Test("the person closing the browser is userCanceled", arguments: SessionBackend.allCases)
    func userCancels(_ backend: SessionBackend) async throws {
        let (session, _) = try makeSession(backend, .userCancels)
        let error = try #require(await run(session).failure)
        #expect(error.code == .userCanceled)
    }

    @Test("an OAuth error redirect completes the session with that URL", arguments: SessionBackend.allCases)
    func oauthError(_ backend: SessionBackend) async throws {
        let (session, _) = try makeSession(backend, .oauthError("access_denied"))
        let url = try await run(session).get()
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)!.queryItems!
        #expect(items.first { $0.name == "error" }?.value == "access_denied")
    }

    @Test("an agent that cannot present fails with presentationFailed", arguments: SessionBackend.allCases)
    func presentFails(_ backend: SessionBackend) async throws {
        let (session, receiver) = try makeSession(backend, .failsToPresent)
        let error = try #require(await run(session).failure)
        #expect(error.code == .presentationFailed)
        #expect(receiver.record.stopCount == 1)
    }

    @Test("a receiver that cannot start fails with its error and presents nothing")
    func receiverFails() async throws {
        let agent = FakeExternalUserAgent()
        let receiver = FakeRedirectReceiver(startFailure: ExternalUserAgentError(.receiverFailed, "port 8400 is taken"))
        let session = ExternalUserAgentSession(agent: agent, receiver: receiver)
        let error = try #require(await run(session).failure)
        #expect(error.code == .receiverFailed)
        #expect(agent.record.presented.isEmpty)
        #expect(receiver.record.stopCount == 1)
    }

    @Test("a session runs once")
    func runsOnce() async throws {
        let (session, _) = try makeSession(.inProcess, .redirect())
        _ = try await run(session).get()
        let error = try #require(await run(session).failure)
        #expect(error.code == .alreadyCompleted)
    }

    @Test("a callback before the receiver started is notStarted")
    func notStarted() throws {
        let (session, _) = try makeSession(.inProcess, .redirect())
        #expect(throws: ExternalUserAgentError.self) {
            try session.resume(with: URL(string: "http://127.0.0.1:49152/callback?state=\(Self.state)")!)
        }
    }

    @Test("an empty http path matches '/'")
    func emptyPathMatchesSlash() async throws {
        let receiver = FakeRedirectReceiver(redirectURI: URL(string: "http://127.0.0.1:49152")!)
        let session = ExternalUserAgentSession(agent: FakeExternalUserAgent(script: .neverAnswers), receiver: receiver)
        let running = Task { try await session.run { Self.authorizationURL($0) } }
        while session.redirectURI == nil { try await Task.sleep(for: .milliseconds(5)) }
        try receiver.deliver(URL(string: "http://127.0.0.1:49152/?code=1")!)
        _ = try await running.value
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
