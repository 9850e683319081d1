// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore
import Synchronization

/// An in-process redirect receiver: gives a fixed redirect URI and lets a test deliver
/// callback URLs as if the browser came back. Records starts and stops.
public final class FakeRedirectReceiver: RedirectReceiver {
    /// The receiver's id (`fake-receiver` unless given).
    public let id: String
    /// The redirect URI `start` returns.
    public let redirectURI: URL
    private let failure: ExternalUserAgentError?
    private let state = Mutex(Record())

    /// What the fake saw.
    public struct Record: Sendable {
        /// Every request `start` was given, in order.
        public var requests: [ReceiverRequest] = []
        /// How often `stop` was called.
        public var stopCount = 0
        fileprivate var session: ExternalUserAgentSession?
    }

    /// - Parameters:
    ///   - id: the receiver's id, as a plugin receiver's would be.
    ///   - redirectURI: what `start` returns.
    ///   - startFailure: when set, `start` throws it.
    public init(
        id: String = "fake-receiver",
        redirectURI: URL = URL(string: "http://127.0.0.1:49152/callback")!,
        startFailure: ExternalUserAgentError? = nil
    ) {
        self.id = id
        self.redirectURI = redirectURI
        self.failure = startFailure
    }

    /// A copy of what the fake saw so far.
    public var record: Record { state.withLock { $0 } }

    /// Records `request` and `session` (for ``deliver(_:)``) and returns ``redirectURI``; throws the `startFailure`
    /// given to the initializer, when there is one.
    public func start(_ request: ReceiverRequest, session: ExternalUserAgentSession) async throws -> URL {
        state.withLock {
            $0.requests.append(request)
            $0.session = session
        }
        if let failure { throw failure }
        return redirectURI
    }

    /// Counts the stop in ``Record/stopCount``.
    public func stop() async {
        state.withLock { $0.stopCount += 1 }
    }

    /// Delivers `url` to the running session, as a browser coming back would; throws what the session says.
    public func deliver(_ url: URL) throws {
        guard let session = state.withLock({ $0.session }) else {
            throw ExternalUserAgentError(.notStarted, "fake receiver '\(id)': no session has started it yet")
        }
        try session.resume(with: url)
    }
}
