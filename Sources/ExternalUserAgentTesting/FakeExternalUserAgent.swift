// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore
import Synchronization

/// An in-process agent with a scripted outcome and a record of what it was asked to do,
/// so an app's tests need no browser and no plugin.
///
/// It plays the same scripts as the headless test agent plugin, delivering straight to the session.
public final class FakeExternalUserAgent: ExternalUserAgent {
    /// What the fake does when asked to present.
    public enum Script: Sendable {
        /// Redirects with `parameters` (a random `code` and the request's `state` unless given), `count` times.
        case redirect(parameters: [String: String] = [:], count: Int = 1)
        /// Redirects with an OAuth error (`access_denied`, …).
        case oauthError(String, description: String? = nil)
        /// The person closes the browser.
        case userCancels
        /// Nothing ever happens.
        case neverAnswers
        /// Presenting fails.
        case failsToPresent
        /// Acts as the browser against the testing kit's local authorization server, in process: the person
        /// signs in as `subject`, and the server's own redirect (a real code it will exchange, the state, `iss`)
        /// is delivered. An app's test of its whole sign-in then runs in milliseconds, with no plugin.
        case signIn(at: LocalAuthorizationServer, as: String)
        /// Acts as the browser on the local authorization server's end-session endpoint, in process: the
        /// server checks the request and records it (``LocalAuthorizationServer/endSessions``), and its redirect
        /// to the post-logout redirect URI, with the state, is delivered.
        case signOut(at: LocalAuthorizationServer)
    }

    /// What the fake saw.
    public struct Record: Sendable {
        /// Every request it was asked to present.
        public var presented: [AgentRequest] = []
        /// How often it was dismissed.
        public var dismissCount = 0
        /// What the session answered to each redirect it delivered (`nil` when accepted).
        public var deliveryErrors: [ExternalUserAgentError?] = []
    }

    /// What the fake is: id `fake` and kind `testDouble` unless given, named `Fake agent (<id>)`.
    public let descriptor: AgentDescriptor
    /// What the fake does each time it is asked to present.
    public let script: Script
    private let state = Mutex(Record())

    /// `family` lets configuration name the fake by a browser family (`firefox`), as a real browser agent's.
    public init(id: String = "fake", kind: AgentKind = .testDouble, family: String? = nil, script: Script = .redirect())
    {
        self.descriptor = AgentDescriptor(id: id, kind: kind, family: family, name: "Fake agent (\(id))")
        self.script = script
    }

    /// A copy of what the fake saw so far.
    public var record: Record { state.withLock { $0 } }

    /// Records `request`, then plays ``script``: the redirect or the cancel is delivered to `session` from a new
    /// task, so this returns first. Throws `presentationFailed` for ``Script/failsToPresent``, and what
    /// ``LocalAuthorizationServer/signIn(authorizationURL:as:)`` throws for ``Script/signIn(at:as:)``.
    public func present(_ request: AgentRequest, session: ExternalUserAgentSession) async throws {
        state.withLock { $0.presented.append(request) }
        switch script {
        case .failsToPresent:
            throw ExternalUserAgentError(
                .presentationFailed, "fake agent '\(descriptor.id)': scripted failure to present")
        case .neverAnswers:
            return
        case .userCancels:
            Task {
                session.cancel(
                    by: .user, message: "fake agent '\(descriptor.id)': the person closed the browser (scripted)")
            }
        case .redirect(let parameters, let count):
            let url = Self.callback(request, parameters: parameters, isError: false)
            Task { for _ in 0..<count { deliver(url, to: session) } }
        case .signIn(let server, let subject):
            let url = try server.signIn(authorizationURL: request.url, as: subject)
            Task { deliver(url, to: session) }
        case .signOut(let server):
            let url = try server.signOut(endSessionURL: request.url)
            Task { deliver(url, to: session) }
        case .oauthError(let error, let description):
            var parameters = ["error": error]
            parameters["error_description"] = description
            let url = Self.callback(request, parameters: parameters, isError: true)
            Task { deliver(url, to: session) }
        }
    }

    /// Counts the dismissal in ``Record/dismissCount``; nothing else happens.
    public func dismiss() async {
        state.withLock { $0.dismissCount += 1 }
    }

    private func deliver(_ url: URL, to session: ExternalUserAgentSession) {
        do {
            try session.resume(with: url)
            state.withLock { $0.deliveryErrors.append(nil) }
        } catch {
            state.withLock { $0.deliveryErrors.append(error as? ExternalUserAgentError) }
        }
    }

    /// The redirect an authorization server would send: the request's `state`, plus `parameters`.
    static func callback(_ request: AgentRequest, parameters: [String: String], isError: Bool) -> URL {
        var components = URLComponents(url: request.redirectURI, resolvingAgainstBaseURL: false)!
        var items = components.queryItems ?? []
        if !isError, parameters["code"] == nil {
            items.append(URLQueryItem(name: "code", value: UUID().uuidString))
        }
        let state = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?
            .queryItems?.first { $0.name == "state" }?.value
        if let state, parameters["state"] == nil {
            items.append(URLQueryItem(name: "state", value: state))
        }
        items += parameters.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        components.queryItems = items
        return components.url!
    }
}
