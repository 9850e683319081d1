// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a redirect receiver should expect.
public struct ReceiverRequest: Sendable, Hashable {
    /// The `state` the callback must carry, when the receiver is able to check it early.
    public var expectedState: String?
    /// How long the session will wait, when it has a limit.
    public var timeout: Duration?
    /// A form the receiver serves once before the redirect comes back (a loopback receiver only; see
    /// ``HandOffForm``).
    public var handOff: HandOffForm?

    /// What the receiver expects: the request's `state` and how long to wait.
    public init(expectedState: String? = nil, timeout: Duration? = nil, handOff: HandOffForm? = nil) {
        self.expectedState = expectedState
        self.timeout = timeout
        self.handOff = handOff
    }
}

/// Provides the redirect URI and hands the callback URL back to the session.
///
/// A loopback HTTP listener, a private-use URI scheme handler, or a person pasting a URL.
public protocol RedirectReceiver: Sendable {
    /// Stable id (`loopback`).
    var id: String { get }

    /// Starts receiving for `session` and returns the redirect URI to put in the request.
    /// Callback URLs go to `session.resume(with:)`, failures to `session.fail(with:)`.
    func start(_ request: ReceiverRequest, session: ExternalUserAgentSession) async throws -> URL

    /// Stops receiving and frees what `start` took (sockets, tasks). Called exactly once.
    func stop() async
}
