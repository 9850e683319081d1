// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What an agent is asked to show.
public struct AgentRequest: Sendable, Hashable {
    /// The authorization URL to open.
    public var url: URL
    /// Where the authorization server will send the browser back to.
    public var redirectURI: URL
    /// How long the session will wait, when it has a limit.
    public var timeout: Duration?

    /// A request to show `url`, whose answer comes back to `redirectURI`, within `timeout` when given.
    public init(url: URL, redirectURI: URL, timeout: Duration? = nil) {
        self.url = url
        self.redirectURI = redirectURI
        self.timeout = timeout
    }
}

/// A user agent: shows an authorization URL to the person, in a browser or otherwise.
///
/// The counterpart of AppAuth's `OIDExternalUserAgent`. One value serves one session at a time.
/// An agent that sees the redirect itself hands it to `session.resume(with:)`; one that learns
/// the person gave up (closed its browser) calls `session.fail(with:)` with `.userCanceled`.
public protocol ExternalUserAgent: Sendable {
    /// Who this agent is.
    var descriptor: AgentDescriptor { get }

    /// Shows `request.url`. Returns once it is shown or handed off; throws if it cannot be.
    func present(_ request: AgentRequest, session: ExternalUserAgentSession) async throws

    /// Closes whatever `present` opened. Called exactly once when the session ends, whatever the outcome.
    func dismiss() async
}
