// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore
import Logging

/// Revokes tokens at the provider's `revocation_endpoint` (RFC 7009).
///
/// The client authenticates as at the token endpoint (as ``TokenEndpoint`` does: `client_id` for a
/// public client; the secret, or a client assertion, for a confidential one). The server answers 200 for a
/// token it revoked and for one it does not know (RFC 7009 §2.2), so success does not prove the token was
/// live. A token is never logged, nor quoted in an error.
public struct TokenRevocation: Sendable {
    /// Which token is revoked: the `token_type_hint` sent with it (RFC 7009 §2.1).
    public enum TokenKind: String, Sendable, Hashable {
        /// A refresh token; revoking it also ends the grant's access tokens at most providers.
        case refreshToken = "refresh_token"
        /// An access token.
        case accessToken = "access_token"
    }

    /// The provider; its ``ServiceConfiguration/revocationEndpoint`` must be set.
    public let configuration: ServiceConfiguration
    /// The client, authenticated with its ``ClientCredentials/authenticationMethod`` as it is.
    public let client: ClientCredentials
    private let http: OAuthHTTP
    private let logger: Logger

    /// A revocation endpoint for `client` at `configuration`.
    public init(
        configuration: ServiceConfiguration, client: ClientCredentials, http: OAuthHTTP = OAuthHTTP(),
        logger: Logger = Logger(label: "eua.oauth")
    ) {
        self.configuration = configuration
        self.client = client
        self.http = http
        self.logger = logger
    }

    /// Revokes `token`, a token of `kind`.
    ///
    /// Throws `invalidOptions` when the server has no revocation endpoint or a confidential client has no
    /// secret (nothing is sent), and `revocationFailed` for a transport error or an answer other than 200
    /// (with the server's OAuth error as `underlying` when it sent one, such as `invalid_client`).
    public func revoke(_ token: String, kind: TokenKind) async throws {
        guard let endpoint = configuration.revocationEndpoint else {
            throw ExternalUserAgentError(
                .invalidOptions,
                "the server \(configuration.issuer) advertises no revocation_endpoint in its metadata; tokens cannot be revoked"
            )
        }
        let (fields, authorization) = try TokenEndpoint.authenticate(
            client, [("token", token), ("token_type_hint", kind.rawValue)],
            audience: endpoint)
        logger.debug(
            "revocation request",
            metadata: [
                "endpoint": "\(endpoint.absoluteString)", "token_type_hint": "\(kind.rawValue)",
                "client_auth": "\(client.authenticationMethod.rawValue)",
            ])
        let response: OAuthHTTP.Response
        do {
            response = try await http.postForm(endpoint, fields: fields, authorization: authorization)
        } catch {
            throw ExternalUserAgentError(
                .revocationFailed,
                "revoking the \(kind.words) at \(endpoint.absoluteString) failed: \(error)", underlying: error)
        }
        logger.debug("revocation response", metadata: ["status": "\(response.status)"])
        guard response.status != 200 else { return }
        let what =
            "the revocation endpoint \(endpoint.absoluteString) refused to revoke the \(kind.words) (HTTP \(response.status))"
        if let oauthError = try? JSONDecoder().decode(OAuthErrorResponse.self, from: response.body) {
            let description = oauthError.errorDescription.map { ": " + UntrustedText.printable($0) } ?? ""
            throw ExternalUserAgentError(
                .revocationFailed,
                "\(what) with '\(UntrustedText.printable(oauthError.error))'\(description)\(Self.advice(oauthError.error))",
                underlying: oauthError,
                remedies: oauthError.error == "invalid_client" ? [.giveClientSecret] : [])
        }
        throw ExternalUserAgentError(.revocationFailed, what + "; the provider may not revoke this kind of token")
    }

    /// What to do about an OAuth error code from the revocation endpoint.
    private static func advice(_ error: String) -> String {
        switch error {
        case "invalid_client": "; check the client id, and give the client secret as for the sign-in"
        case "unsupported_token_type": "; the provider does not revoke this kind of token"
        default: ""
        }
    }
}

extension TokenRevocation.TokenKind {
    /// `refresh token` or `access token`, for messages.
    public var words: String { self == .refreshToken ? "refresh token" : "access token" }
}
