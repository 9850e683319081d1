// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentRules
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore
import Logging

/// Talks to the token endpoint: exchanges a code (RFC 6749 §4.1.3) and refreshes (§6).
///
/// A public client sends `client_id` in the body; a client with a secret uses `client_secret_basic`
/// or `client_secret_post`. Failures are `ExternalUserAgentError`:
/// `tokenRequestFailed` for transport errors, HTTP failures and bodies that are not a token
/// response; `oauthError` (cause: ``OAuthErrorResponse``) when the server answers with an OAuth error.
public struct TokenEndpoint: Sendable {
    /// The provider whose `token_endpoint` is used.
    public let configuration: ServiceConfiguration
    /// The client, authenticated with its ``ClientCredentials/authenticationMethod`` as it is.
    public let client: ClientCredentials
    /// The key of a DPoP sign-in (RFC 9449): every request then carries a proof made with it (with the server's
    /// `DPoP-Nonce`, retried once on `use_dpop_nonce`), and a token response whose `token_type` is not `DPoP` is
    /// refused. `nil`: Bearer tokens.
    public var dpopKey: DPoPKey?
    private let http: OAuthHTTP
    private let logger: Logger

    /// A token endpoint for `client` at `configuration`. The client's method is used as given: negotiate a
    /// defaulted one first (``ClientCredentials/negotiated(with:)``).
    public init(
        configuration: ServiceConfiguration, client: ClientCredentials, http: OAuthHTTP = OAuthHTTP(),
        logger: Logger = Logger(label: "eua.oauth")
    ) {
        self.configuration = configuration
        self.client = client
        self.http = http
        self.logger = logger
    }

    /// Exchanges `response.code` for tokens, with the request's `redirect_uri` and PKCE verifier, then
    /// `additionalParameters` (`resource`…, checked by ``AuthorizationParameters/validate()``).
    public func exchange(
        _ response: AuthorizationResponse, for request: AuthorizationRequest,
        additionalParameters: [(String, String)] = []
    ) async throws -> TokenResponse {
        try await send(
            [
                ("grant_type", "authorization_code"),
                ("code", response.code),
                ("redirect_uri", request.redirectURI.absoluteString),
                ("code_verifier", request.pkce.codeVerifier),
            ] + additionalParameters, purpose: "code exchange")
    }

    /// Gets new tokens with `refreshToken`; `scope` narrows the grant when given; `additionalParameters` are the
    /// sign-in's token request parameters (`resource`…, ``AuthState/refreshParameters``).
    public func refresh(
        refreshToken: String, scope: String? = nil,
        additionalParameters: [(String, String)] = []
    ) async throws -> TokenResponse {
        var fields = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
        if let scope { fields.append(("scope", scope)) }
        return try await send(fields + additionalParameters, purpose: "refresh")
    }

    /// Polls once for the tokens of a device authorization (RFC 8628 §3.4). The server's "not yet"
    /// answers (`authorization_pending`, `slow_down`) are `oauthError`s whose cause is an
    /// ``OAuthErrorResponse``; ``DeviceAuthorization`` turns them into waiting.
    public func deviceToken(deviceCode: String) async throws -> TokenResponse {
        try await send(
            [("grant_type", DeviceAuthorization.grantType), ("device_code", deviceCode)],
            purpose: "device code poll")
    }

    /// `fields` with the client's authentication added: `client_id` (and the secret for
    /// `client_secret_post`) in the body, or an `Authorization` header for `client_secret_basic`, and for the JWT
    /// methods the `client_assertion` made for `audience` (``ClientAssertion``). The one rule for every endpoint
    /// the client authenticates at (token, device, revocation, pushed authorization). A confidential client
    /// without its secret is `invalidOptions` (nothing is sent).
    static func authenticate(_ client: ClientCredentials, _ fields: [(String, String)], audience: URL) throws
        -> ([(String, String)], String?)
    {
        var fields = fields
        var authorization: String?
        switch client.authenticationMethod {
        case .none, .clientSecretJWT, .privateKeyJWT:
            // The JWT methods add their client_assertion (``ClientAssertion``); client_id helps servers find the client.
            fields.append(("client_id", client.clientID))
        case .clientSecretPost:
            fields.append(("client_id", client.clientID))
            fields.append(("client_secret", try client.requiredSecret()))
        case .clientSecretBasic:
            // RFC 6749 §2.3.1: both parts are form-encoded before Base64.
            let pair = FormCoding.escape(client.clientID) + ":" + FormCoding.escape(try client.requiredSecret())
            authorization = "Basic " + Data(pair.utf8).base64EncodedString()
        }
        fields += try ClientAssertion.fields(for: client, audience: audience)
        return (fields, authorization)
    }

    private func send(_ grantFields: [(String, String)], purpose: String) async throws -> TokenResponse {
        let (fields, authorization) = try Self.authenticate(client, grantFields, audience: configuration.tokenEndpoint)
        let endpoint = configuration.tokenEndpoint.absoluteString
        logger.debug(
            "token request",
            metadata: [
                "endpoint": "\(endpoint)", "grant": "\(purpose)",
                "client_auth": "\(client.authenticationMethod.rawValue)",
            ])
        var response: OAuthHTTP.Response
        do {
            response = try await http.postForm(
                configuration.tokenEndpoint, fields: fields, authorization: authorization,
                headers: try proof(nonce: nil))
            if let nonce = Self.nonceDemand(response) {
                // RFC 9449 §8: the server wants its nonce in the proof; one retry with it.
                logger.debug("the token endpoint asked for a DPoP nonce; sending the request again with it")
                response = try await http.postForm(
                    configuration.tokenEndpoint, fields: fields, authorization: authorization,
                    headers: try proof(nonce: nonce))
            }
        } catch let error as ExternalUserAgentError {
            throw error
        } catch {
            throw ExternalUserAgentError(
                .tokenRequestFailed,
                "the \(purpose) at the token endpoint \(endpoint) failed: \(error)",
                underlying: error)
        }
        logger.debug("token response", metadata: ["status": "\(response.status)"])
        let tokens = try Self.interpret(
            status: response.status, contentType: response.contentType, body: response.body,
            endpoint: endpoint, purpose: purpose)
        if dpopKey != nil, tokens.tokenType.lowercased() != "dpop" {
            throw ExternalUserAgentError(
                .tokenRequestFailed,
                "a DPoP-bound token was asked for (RFC 9449), and the token endpoint \(endpoint) answered the \(purpose) "
                    + "with token_type '\(UntrustedText.printable(tokens.tokenType))', not 'DPoP'; the tokens were refused "
                    + "and nothing was saved: the server may not support DPoP (sign in without it)",
                remedies: [.withoutDPoP])
        }
        return tokens
    }

    /// The `DPoP` header for a token request, when this endpoint has a key.
    private func proof(nonce: String?) throws -> [(String, String)] {
        guard let dpopKey else { return [] }
        return [
            ("DPoP", try DPoPProof.make(key: dpopKey, method: "POST", url: configuration.tokenEndpoint, nonce: nonce))
        ]
    }

    /// The server's `DPoP-Nonce` when it refused a request with `use_dpop_nonce` (RFC 9449 §8); `nil` otherwise,
    /// and for a nonce that is empty, over 512 characters or not printable ASCII.
    static func nonceDemand(_ response: OAuthHTTP.Response) -> String? {
        guard response.status == 400 || response.status == 401,
            (try? JSONDecoder().decode(OAuthErrorResponse.self, from: response.body))?.error == "use_dpop_nonce",
            let nonce = response.header(named: "DPoP-Nonce"), !nonce.isEmpty, nonce.count <= 512,
            nonce.allSatisfy({ $0.isASCII && ($0.asciiValue ?? 0) > 0x20 && ($0.asciiValue ?? 0) < 0x7F })
        else { return nil }
        return nonce
    }

    /// Reads the token endpoint's answer: a token response on 200, else an OAuth error (RFC 6749 §5.2).
    ///
    /// Throws `oauthError` (cause: ``OAuthErrorResponse``) and `tokenRequestFailed`, which names a field
    /// of the wrong type or out of range but never quotes the body, which may hold tokens.
    static func interpret(
        status: Int, contentType: String?, body: Data, endpoint: String,
        purpose: String
    ) throws -> TokenResponse {
        let isJSON = contentType?.lowercased().contains("json") ?? false
        if status != 200 {
            if let oauthError = try? JSONDecoder().decode(OAuthErrorResponse.self, from: body) {
                throw refusal(oauthError, purpose: purpose, status: status)
            }
            throw ExternalUserAgentError(
                .tokenRequestFailed,
                "the token endpoint \(endpoint) answered the \(purpose) with HTTP \(status)"
                    + (isJSON ? "" : " and a body that is not JSON (\(contentType ?? "no content type"))"))
        }
        do {
            return try TokenResponse(fields: JSONFields(json: body))
        } catch let error as InvalidFieldError {
            if let oauthError = try? JSONDecoder().decode(OAuthErrorResponse.self, from: body) {
                throw refusal(oauthError, purpose: purpose, status: nil)
            }
            throw ExternalUserAgentError(
                .tokenRequestFailed,
                "the token endpoint \(endpoint) answered the \(purpose) with a token response whose \(error); "
                    + "nothing was saved — the provider must fix its answer", underlying: error)
        } catch {
            if let oauthError = try? JSONDecoder().decode(OAuthErrorResponse.self, from: body) {
                throw refusal(oauthError, purpose: purpose, status: nil)
            }
            let what =
                isJSON
                ? "JSON that is not a token response (it needs access_token and token_type)"
                : "a body that is not JSON (\(contentType ?? "no content type"))"
            // The decoding error may quote the body, which can hold tokens: keep only its kind.
            throw ExternalUserAgentError(
                .tokenRequestFailed,
                "the token endpoint \(endpoint) answered the \(purpose) with \(what)")
        }
    }

    private static func refusal(_ oauthError: OAuthErrorResponse, purpose: String, status: Int?)
        -> ExternalUserAgentError
    {
        ExternalUserAgentError(
            .oauthError,
            "the token endpoint refused the \(purpose) with '\(oauthError.error)'"
                + (oauthError.errorDescription.map { ": \($0)" } ?? "") + (status.map { " (HTTP \($0))" } ?? ""),
            underlying: oauthError)
    }
}
