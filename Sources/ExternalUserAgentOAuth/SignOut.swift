// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore
import Logging
import Synchronization

/// A sign-out: the tokens revoked (RFC 7009), the provider's session ended through an agent (OpenID Connect
/// RP-Initiated Logout), the saved state forgotten. The counterpart of AppAuth's end-session flow.
///
/// ```swift
/// let state = try AuthState.load(from: .standard())
/// let outcome = try await SignOut(state: state).run(agent: agent, receiver: receiver)
/// for failure in outcome.revocationFailures { print("not revoked: \(failure.kind.words): \(failure.error.message)") }
/// ```
///
/// The refresh token is revoked first (at most providers that also ends its access tokens), then the access
/// token. A revocation that fails does not stop the sign-out: by default the saved state is removed anyway and
/// the failure is in ``Outcome/revocationFailures``, since keeping tokens the person asked to be rid of is the
/// worse surprise; set ``keepsStateOnRevocationFailure`` to keep it, so that a later sign-out can try again.
public struct SignOut: Sendable {
    /// A token that could not be revoked, and why.
    public struct RevocationFailure: Sendable {
        /// Which token.
        public var kind: TokenRevocation.TokenKind
        /// Why: `revocationFailed` (with the server's OAuth error as `underlying`), or `invalidOptions`.
        public var error: ExternalUserAgentError
    }

    /// How the end-session request reaches the provider.
    public enum Delivery: String, Sendable, CaseIterable {
        /// A URL the agent opens, with `client_id` and never the ID token (the default): the provider may ask the
        /// person to confirm.
        case clientID = "client-id"
        /// The ID token as `id_token_hint` in a form the loopback receiver serves once at a one-time path and the
        /// browser POSTs at once: the agent is given only that loopback URL (for a provider that ends a session
        /// only for a hint).
        case hintPost = "hint-post"
        /// The same form, sent by GET, for a provider that takes the end-session request only by GET (Glewlwyd):
        /// the hint is then in the browser's history, but still never in a launched URL.
        case hintGet = "hint-get"
    }

    /// What became of the provider's browser session.
    public enum EndSession: Sendable {
        /// Not asked for (``SignOut/endsSession`` is `false`, or sign-out ran without an agent).
        case notRequested
        /// The provider advertises no `end_session_endpoint`: its browser session goes on.
        case notSupported
        /// The end-session request was shown, and the provider sent the browser back to the post-logout
        /// redirect URI with this sign-out's `state`.
        case completed(postLogoutRedirectURI: URL)
        /// The end-session request was shown, with no post-logout redirect URI: the browser shows the
        /// provider's page, and nothing tells whether the person finished there.
        case sent
        /// The end-session request could not be shown, or its answer did not come back in time.
        case failed(ExternalUserAgentError)
    }

    /// What a sign-out did.
    public struct Outcome: Sendable {
        /// The tokens revoked, in order.
        public var revoked: [TokenRevocation.TokenKind] = []
        /// The tokens that could not be revoked.
        public var revocationFailures: [RevocationFailure] = []
        /// Whether the provider advertises a `revocation_endpoint`.
        public var revocationSupported = false
        /// What became of the provider's browser session.
        public var endSession: EndSession = .notRequested
        /// Whether a saved state was deleted.
        public var stateRemoved = false
        /// Whether the saved state was kept because a revocation failed (``SignOut/keepsStateOnRevocationFailure``).
        public var stateKept = false
        /// Set when a ``Delivery/clientID`` end-session request failed (timed out) and the provider, asked the same again,
        /// answered with an empty page and no redirect: it ends a session only for an `id_token_hint`.
        public var endSessionNeedsHint = false
    }

    /// The signed-in state: its client (with the secret given at load) and tokens.
    public var state: AuthState
    /// The provider's endpoints: the state's, as saved at sign-in, unless replaced (by a fresh ``Discovery`` for a
    /// state saved before its provider advertised revocation or end-session).
    public var configuration: ServiceConfiguration
    /// Revoke the refresh and access tokens when the provider has a revocation endpoint.
    public var revokesTokens = true
    /// Present the end-session request through the agent.
    public var endsSession = true
    /// Keep the saved state when a token could not be revoked (default: remove it anyway).
    public var keepsStateOnRevocationFailure = false
    /// How long the person has to finish on the provider's page, from when it is shown.
    public var timeout: Duration?
    /// How the end-session request reaches the provider (default: ``Delivery/clientID``).
    public var delivery: Delivery = .clientID
    /// Extra end-session parameters (`logout_hint`, `ui_locales`); never `id_token_hint` (``EndSessionRequest``).
    public var additionalParameters: [(name: String, value: String)] = []
    private let http: OAuthHTTP
    private let logger: Logger

    /// A sign-out of `state`: revoke, end the session, forget; 300 s for the person on the provider's page.
    public init(
        state: AuthState, timeout: Duration? = .seconds(300), http: OAuthHTTP = OAuthHTTP(),
        logger: Logger = Logger(label: "eua.oauth")
    ) {
        self.state = state
        self.configuration = state.configuration
        self.timeout = timeout
        self.http = http
        self.logger = logger
    }

    /// Runs the whole sign-out: revocation, then the end-session request through `agent`, coming back to
    /// `receiver` (its redirect URI is the `post_logout_redirect_uri`; `nil`: none is sent and nothing is
    /// awaited), then the state file removed under its lock. `agent` `nil` skips the end-session request.
    ///
    /// Failures of revocation and end-session are in the ``Outcome``; only the removal of the state throws
    /// (`stateFileInvalid`, `timedOut` waiting for its lock), and a cancelled task (`programCanceled`, the state kept).
    public func run(agent: (any ExternalUserAgent)?, receiver: (any RedirectReceiver)?) async throws -> Outcome {
        var outcome = revokesTokens ? await revokeTokens() : Outcome()
        outcome.revocationSupported = configuration.revocationEndpoint != nil
        // Saved before the browser step, which may be interrupted or time out: a revoked token is never given again.
        try await state.recordRevocation(outcome.revoked)
        if endsSession, configuration.endSessionEndpoint == nil {
            outcome.endSession = .notSupported
        } else if endsSession, let agent {
            outcome.endSession = await endSession(agent: agent, receiver: receiver)
            if delivery == .clientID, receiver != nil, case .failed = outcome.endSession {
                outcome.endSessionNeedsHint = await endSessionAnswersEmptyPage()
            }
        }
        if Task.isCancelled {
            // Cancelled (Ctrl-C) while revoking or waiting for the browser: stop here, the state as it is.
            throw ExternalUserAgentError(
                .programCanceled,
                "the sign-out was cancelled"
                    + (outcome.revoked.isEmpty
                        ? "; the saved state was kept"
                        : " after revoking the "
                            + outcome.revoked.map(\.words).joined(separator: " and ")
                            + "; the saved state was kept, marked signed out (its tokens are not used again)"))
        }
        if let file = state.file {
            if keepsStateOnRevocationFailure, !outcome.revocationFailures.isEmpty {
                outcome.stateKept = true
            } else {
                outcome.stateRemoved = try await file.remove()
            }
        }
        logger.info(
            "signed out",
            metadata: [
                "revoked": "\(outcome.revoked.map(\.rawValue))",
                "not_revoked": "\(outcome.revocationFailures.map(\.kind.rawValue))",
                "state_removed": "\(outcome.stateRemoved)",
            ])
        return outcome
    }

    /// Revokes the refresh token, then the access token, when the provider has a revocation endpoint.
    public func revokeTokens() async -> Outcome {
        var outcome = Outcome()
        outcome.revocationSupported = configuration.revocationEndpoint != nil
        guard outcome.revocationSupported, let tokens = await state.lastTokenResponse else { return outcome }
        let revokedEarlier = await state.revokedTokens?.kinds ?? []
        let revocation = TokenRevocation(configuration: configuration, client: state.client, http: http, logger: logger)
        let pairs: [(TokenRevocation.TokenKind, String?)] = [
            (.refreshToken, tokens.refreshToken), (.accessToken, tokens.accessToken),
        ]
        for case (let kind, let token?) in pairs where !token.isEmpty && !revokedEarlier.contains(kind) {
            do {
                try await revocation.revoke(token, kind: kind)
                outcome.revoked.append(kind)
            } catch let error as ExternalUserAgentError {
                logger.warning(
                    "a token was not revoked",
                    metadata: ["token_type_hint": "\(kind.rawValue)", "why": "\(error.message)"])
                outcome.revocationFailures.append(RevocationFailure(kind: kind, error: error))
            } catch {
                outcome.revocationFailures.append(
                    RevocationFailure(
                        kind: kind, error: ExternalUserAgentError(.revocationFailed, "\(error)", underlying: error)))
            }
        }
        return outcome
    }

    /// Presents the end-session request through `agent`. With `receiver`, its redirect URI is the
    /// `post_logout_redirect_uri` and the redirect back, with this request's `state`, is awaited (a request
    /// with another `state` is turned away and the wait goes on until ``timeout``); without, the request is
    /// shown and the provider's page is left to the person (the agent is not dismissed, so the page stays).
    public func endSession(agent: any ExternalUserAgent, receiver: (any RedirectReceiver)?) async -> EndSession {
        let configuration = self.configuration
        guard configuration.endSessionEndpoint != nil else { return .notSupported }
        let (clientID, extra) = (state.client.clientID, additionalParameters)
        do {
            if delivery != .clientID {
                return try await endSessionWithHint(agent: agent, receiver: receiver)
            }
            guard let receiver else {
                let request = try EndSessionRequest(
                    configuration: configuration, clientID: clientID,
                    postLogoutRedirectURI: nil, additionalParameters: extra)
                let session = ExternalUserAgentSession(agent: agent, receiver: NoRedirectBack())
                try await agent.present(
                    AgentRequest(
                        url: request.url, redirectURI: request.endpoint, timeout: timeout,
                        purpose: .signOut),
                    session: session)
                return .sent
            }
            let expectedState = SecureRandom.token(bits: 256)
            let session = redirectSession(agent: agent, receiver: receiver, expectedState: expectedState)
            let box = EndSessionBox()
            let callback = try await session.run { redirectURI in
                let request = try EndSessionRequest(
                    configuration: configuration, clientID: clientID,
                    postLogoutRedirectURI: redirectURI, additionalParameters: extra,
                    state: expectedState)
                box.set(request)
                return request.url
            }
            guard let request = box.get() else {
                throw ExternalUserAgentError(.endSessionFailed, "the sign-out ended before its request was made")
            }
            try request.check(callback: callback)
            return .completed(postLogoutRedirectURI: request.postLogoutRedirectURI ?? callback)
        } catch let error as ExternalUserAgentError {
            return .failed(error)
        } catch {
            return .failed(ExternalUserAgentError(.endSessionFailed, "\(error)", underlying: error))
        }
    }
}

extension SignOut {
    /// The time limit of the probe that tells a provider needing an `id_token_hint` (one small GET).
    static let probeTimeout: Duration = .seconds(5)

    /// Whether the provider answers an end-session request with `client_id` alone (no session cookie, so nobody is
    /// signed out by it) with HTTP 200, no form and next to no text: a provider that ends a session only for an
    /// `id_token_hint` (Glewlwyd). A provider that asks the person to confirm shows a form instead.
    ///
    /// It runs after the end-session wait failed, often because that wait used the whole sign-out time, so it has
    /// a time limit of its own (``probeTimeout``) instead of what is left of the client's deadline (nothing, then).
    func endSessionAnswersEmptyPage() async -> Bool {
        guard
            let request = try? EndSessionRequest(
                configuration: configuration, clientID: state.client.clientID,
                postLogoutRedirectURI: nil),
            let response = try? await http.ending(after: Self.probeTimeout).get(request.url),
            response.status == 200
        else { return false }
        let text = String(decoding: response.body.prefix(64 * 1024), as: UTF8.self)
        let words = ProviderPageText.words(of: response.body, contentType: response.contentType) ?? ""
        return !text.lowercased().contains("<form") && words.count < 40
    }

    /// A sign-out's session that waits, up to ``timeout``, for the post-logout redirect with `expectedState` (a request
    /// to that URI with another `state` is turned away, logged, and the wait goes on); `handOff`, the form the receiver
    /// serves for an end-session request with `id_token_hint`.
    private func redirectSession(
        agent: any ExternalUserAgent, receiver: any RedirectReceiver, expectedState: String, handOff: HandOffForm? = nil
    ) -> ExternalUserAgentSession {
        ExternalUserAgentSession(
            agent: agent, receiver: receiver,
            configuration: .init(
                expectedState: expectedState, timeout: timeout,
                onRefused: { [logger] reason in
                    logger.info(
                        "a request to the post-logout redirect URI was turned away; still waiting",
                        metadata: ["why": "\(reason)"])
                }, purpose: .signOut, handOff: handOff))
    }

    /// The end-session request with `id_token_hint`, in a form the loopback `receiver` serves once: the agent is given
    /// only the receiver's one-time URL, the browser sends the form to the provider, and the post-logout redirect
    /// comes back to the receiver with this request's `state`.
    func endSessionWithHint(agent: any ExternalUserAgent, receiver: (any RedirectReceiver)?) async throws -> EndSession
    {
        guard let endpoint = configuration.endSessionEndpoint else { return .notSupported }
        guard let receiver else {
            throw ExternalUserAgentError(
                .endSessionFailed,
                "the ID token goes to the provider only in a form the loopback receiver serves, and this sign-out has no "
                    + "post-logout redirect URI to receive on; give a loopback one registered with the provider")
        }
        guard let idToken = await state.lastTokenResponse?.idToken, !idToken.isEmpty else {
            throw ExternalUserAgentError(
                .endSessionFailed,
                "the saved state holds no ID token, so the provider cannot be sent an id_token_hint; its session is "
                    + "ended only on its own page")
        }
        let expectedState = SecureRandom.token(bits: 256)
        let check = try EndSessionRequest(
            configuration: configuration, clientID: state.client.clientID,
            postLogoutRedirectURI: nil, additionalParameters: additionalParameters,
            state: expectedState)
        var fields = [
            HandOffForm.Field(name: "id_token_hint", value: idToken),
            HandOffForm.Field(name: "client_id", value: state.client.clientID),
            HandOffForm.Field(name: "state", value: expectedState),
        ]
        fields += additionalParameters.map { HandOffForm.Field(name: $0.name, value: $0.value) }
        let form = HandOffForm(
            action: endpoint, method: delivery == .hintGet ? .get : .post, fields: fields,
            redirectURIField: "post_logout_redirect_uri")
        let session = redirectSession(agent: agent, receiver: receiver, expectedState: expectedState, handOff: form)
        let callback = try await session.run { redirectURI in
            guard redirectURI.scheme == "http", let url = form.url(on: redirectURI) else {
                throw ExternalUserAgentError(
                    .endSessionFailed,
                    "the ID token goes to the provider only in a form the loopback receiver serves; the post-logout "
                        + "redirect URI \(redirectURI.absoluteString) is not a loopback one")
            }
            return url
        }
        try check.check(callback: callback)
        return .completed(postLogoutRedirectURI: callback)
    }
}

/// The receiver of an end-session request that sends nobody back: never started.
private struct NoRedirectBack: RedirectReceiver {
    let id = "none"
    func start(_ request: ReceiverRequest, session: ExternalUserAgentSession) async throws -> URL {
        throw ExternalUserAgentError(.receiverFailed, "this end-session request has no post-logout redirect URI")
    }
    func stop() async {}
}

/// Carries the end-session request out of the session's URL builder.
private final class EndSessionBox: Sendable {
    private let value = Mutex<EndSessionRequest?>(nil)
    func set(_ request: EndSessionRequest) { value.withLock { $0 = request } }
    func get() -> EndSessionRequest? { value.withLock { $0 } }
}
