// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentRules
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore

/// An end-session (sign-out) request, OpenID Connect RP-Initiated Logout 1.0 §2, presented through any agent.
///
/// It carries `client_id`, `post_logout_redirect_uri` (when the person is to come back), a `state` of 256
/// random bits, and an optional `logout_hint`. It never carries `id_token_hint`: whatever an agent launches
/// through GIO is broadcast on the session bus (GIO's `Launched` signal holds the whole URL) and a browser's
/// argv is readable in `/proc`, so an ID token — a signed statement of who the person is — must not be in the
/// URL. RP-Initiated Logout §2 lets `client_id` stand in for it; the provider may then ask the person to confirm.
public struct EndSessionRequest: Sendable, Hashable {
    /// The parameters this type owns; an extra one with such a name is refused. `id_token_hint` is among them:
    /// it may not be added at all.
    public static let reservedParameters: Set<String> = [
        "client_id", "post_logout_redirect_uri", "state", "id_token_hint",
    ]

    /// The provider's end-session endpoint.
    public let endpoint: URL
    /// The `client_id` parameter, always sent.
    public let clientID: String
    /// Where the provider sends the browser back after signing out, when given (it must be registered with the
    /// provider); without it the browser stays on the provider's page.
    public let postLogoutRedirectURI: URL?
    /// The `state` parameter, which the post-logout redirect must carry back unchanged.
    public let state: String
    /// Extra parameters (`logout_hint`, `ui_locales`), in order: never personal data the person did not choose to
    /// send, since the URL is broadcast (see the type's description).
    public let additionalParameters: [(name: String, value: String)]

    /// A request to `configuration`'s end-session endpoint for `clientID`.
    ///
    /// Throws `endSessionFailed` when the provider advertises no `end_session_endpoint`, and `invalidOptions`
    /// when an extra parameter names one of ``reservedParameters``.
    public init(
        configuration: ServiceConfiguration, clientID: String, postLogoutRedirectURI: URL?,
        additionalParameters: [(name: String, value: String)] = [], state: String? = nil
    ) throws {
        guard let endpoint = configuration.endSessionEndpoint else {
            throw ExternalUserAgentError(
                .endSessionFailed,
                "the server \(configuration.issuer) advertises no end_session_endpoint (OpenID Connect RP-Initiated "
                    + "Logout), so its browser session cannot be ended from here; sign out on the provider's own page")
        }
        if let clash = additionalParameters.first(where: { Self.reservedParameters.contains($0.name) }) {
            throw ExternalUserAgentError(
                .invalidOptions,
                "the extra end-session parameter '\(clash.name)' is not allowed: the client sets it itself, or it "
                    + "must never be put in a URL an agent launches (id_token_hint)")
        }
        self.endpoint = endpoint
        self.clientID = clientID
        self.postLogoutRedirectURI = postLogoutRedirectURI
        self.state = state ?? SecureRandom.token(bits: 256)
        self.additionalParameters = additionalParameters
    }

    /// The URL to open in the user agent: the end-session endpoint with this request's parameters.
    public var url: URL {
        var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)!
        var items = (components.queryItems ?? []).map { (name: $0.name, value: $0.value ?? "") }
        items.removeAll { Self.reservedParameters.contains($0.name) }
        items.append((name: "client_id", value: clientID))
        if let postLogoutRedirectURI {
            items.append((name: "post_logout_redirect_uri", value: postLogoutRedirectURI.absoluteString))
        }
        items.append((name: "state", value: state))
        items += additionalParameters
        components.percentEncodedQuery = items.map { FormCoding.escape($0.name) + "=" + FormCoding.escape($0.value) }
            .joined(separator: "&")
        return components.url!
    }

    /// Checks the post-logout redirect `callback`: it must carry this request's `state` exactly once.
    /// Throws `stateMismatch` otherwise (the receiver has already turned away a wrong one; this is the last check).
    public func check(callback: URL) throws {
        let states = QueryParameters.parse(callback).filter { $0.name == "state" }
        guard states.count == 1, states[0].value == state else {
            throw ExternalUserAgentError(
                .stateMismatch,
                "the post-logout redirect does not carry this sign-out's state; it was not accepted")
        }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.url == rhs.url }

    public func hash(into hasher: inout Hasher) { hasher.combine(url) }
}
