// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What an agent is asked to show.
public struct AgentRequest: Sendable, Hashable {
    /// What a request is for, so that an agent that speaks to the person uses the right words.
    ///
    /// Crosses the plugin ABI as the request's `purpose` member (`"sign-in"`, `"sign-out"`); a plugin that does not
    /// know the member, or a value, treats the request as a sign-in.
    public struct Purpose: Sendable, Hashable, CustomStringConvertible {
        /// The name on the wire.
        public let rawValue: String
        /// A name on the wire, as the host sends it.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// An authorization request: the person signs in.
        public static let signIn = Self(rawValue: "sign-in")
        /// An end-session request: the person signs out.
        public static let signOut = Self(rawValue: "sign-out")
        /// The name on the wire.
        public var description: String { rawValue }
    }

    /// The authorization URL to open.
    public var url: URL
    /// Where the authorization server will send the browser back to.
    public var redirectURI: URL
    /// How long the session will wait, when it has a limit.
    public var timeout: Duration?
    /// What the request is for (default: a sign-in).
    public var purpose: Purpose

    /// A request to show `url`, whose answer comes back to `redirectURI`, within `timeout` when given.
    public init(url: URL, redirectURI: URL, timeout: Duration? = nil, purpose: Purpose = .signIn) {
        self.url = url
        self.redirectURI = redirectURI
        self.timeout = timeout
        self.purpose = purpose
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
