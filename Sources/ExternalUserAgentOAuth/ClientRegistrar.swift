// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore
import Logging

/// Registers a client at a provider's registration endpoint (RFC 7591 §3, OpenID Connect Registration §3),
/// the counterpart of AppAuth's `OIDRegistrationRequest`.
///
/// ```swift
/// let service = try await Discovery().configuration(issuer: "https://id.example.com")
/// let request = try ClientRegistrationRequest(redirectURIs: [URL(string: "http://127.0.0.1/cb")!])
/// let registration = try await ClientRegistrar().register(request, at: service)
/// try ClientRegistrationFile.beside(stateFile).save(registration)
/// ```
public struct ClientRegistrar: Sendable {
    private let http: OAuthHTTP
    private let logger: Logger

    /// A registrar that sends its requests with `http` and logs to `logger` (never a secret).
    public init(http: OAuthHTTP = OAuthHTTP(), logger: Logger = Logger(label: "eua.oauth")) {
        self.http = http
        self.logger = logger
    }

    /// Sends `request` to `configuration`'s `registration_endpoint` and reads the answer.
    ///
    /// Throws `registrationFailed`: no endpoint, unreachable, refused (`invalid_redirect_uri`… with the
    /// server's description), or an answer without a `client_id`. The answer's secrets are never logged.
    public func register(_ request: ClientRegistrationRequest, at configuration: ServiceConfiguration) async throws
        -> ClientRegistration
    {
        guard let url = configuration.registrationEndpoint else {
            throw ExternalUserAgentError(
                .registrationFailed,
                "the provider \(configuration.issuer) offers no dynamic registration (no registration_endpoint in its "
                    + "metadata); register the client by hand and give its client id", remedies: [.giveClientID])
        }
        let endpoint = url.absoluteString
        logger.debug(
            "registering a client",
            metadata: [
                "endpoint": "\(endpoint)",
                "redirect_uris": "\(request.redirectURIs.map(\.absoluteString))",
            ])
        let response: OAuthHTTP.Response
        do {
            response = try await http.postJSON(
                url, body: Data(request.json.jsonText.utf8),
                authorization: request.initialAccessToken.map { "Bearer " + $0 })
        } catch {
            throw ExternalUserAgentError(
                .registrationFailed, "the registration endpoint \(endpoint) could not be reached: \(error)",
                underlying: error)
        }
        guard response.status == 201 || response.status == 200 else {
            if let refusal = try? JSONDecoder().decode(OAuthErrorResponse.self, from: response.body) {
                throw ExternalUserAgentError(
                    .registrationFailed,
                    "the registration endpoint \(endpoint) refused the client with '\(refusal.error)'"
                        + (refusal.errorDescription.map { ": \($0)" } ?? "") + " (HTTP \(response.status))",
                    underlying: refusal)
            }
            let words = ProviderPageText.words(of: response.body, contentType: response.contentType)
            throw ExternalUserAgentError(
                .registrationFailed,
                "the registration endpoint \(endpoint) refused the client "
                    + "(HTTP \(response.status))" + (words.map { ", saying: \($0)" } ?? " with no explanation"))
        }
        var answer: ClientRegistration
        do {
            answer = try JSONDecoder().decode(
                ClientRegistration.self, from: Self.withIssuer(response.body, configuration.issuer))
        } catch let error as InvalidFieldError {
            throw ExternalUserAgentError(
                .registrationFailed,
                "the registration endpoint \(endpoint) answered with a client whose \(error); nothing was saved",
                underlying: error)
        } catch {
            throw ExternalUserAgentError(
                .registrationFailed,
                "the registration endpoint \(endpoint) answered with something that is not a client information response "
                    + "(RFC 7591 §3.2.1: a JSON object with client_id); nothing was saved")
        }
        answer.issuer = configuration.issuer
        if ![.none, .privateKeyJWT].contains(answer.tokenEndpointAuthMethod), answer.clientSecret == nil {
            throw ExternalUserAgentError(
                .registrationFailed,
                "the registration endpoint \(endpoint) registered client '\(answer.clientID)' for "
                    + "\(answer.tokenEndpointAuthMethod.rawValue) but gave no client_secret; nothing was saved")
        }
        logger.info(
            "client registered", metadata: ["issuer": "\(configuration.issuer)", "client_id": "\(answer.clientID)"])
        return answer
    }

    /// The answer with `issuer` put in, since a client information response does not name it.
    private static func withIssuer(_ body: Data, _ issuer: String) throws -> Data {
        guard case .object(var members)? = JSONValue.read(body) else {
            throw InvalidFieldError(field: "(response)", problem: "is not a JSON object")
        }
        members["issuer"] = .string(issuer)
        return Data(JSONValue.object(members).jsonText.utf8)
    }
}
