// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentRules
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore
import Logging

/// A Pushed Authorization Request (RFC 9126): the authorization request's parameters are posted to the server's
/// `pushed_authorization_request_endpoint`, with the client authenticated as at the token endpoint, and the user agent
/// gets only `client_id` and the `request_uri` the server answers with.
///
/// ``SignIn`` pushes on its own when the server advertises the endpoint (unless ``SignIn/usesPushedAuthorization`` is
/// off), and must when it says `require_pushed_authorization_requests`.
public struct PushedAuthorizationRequest: Sendable {
    /// The server's answer (RFC 9126 §2.2), checked.
    public struct Response: Sendable, Hashable {
        /// The reference to the pushed request, for the authorization URL; used once.
        public var requestURI: String
        /// How long ``requestURI`` is good for, in seconds.
        public var expiresIn: Int
    }

    /// A push endpoint's answer that was neither a push response nor an OAuth error: only its HTTP status (the
    /// `underlying` cause of the `presentationFailed` error ``push(_:signed:)`` throws for it).
    public struct Refusal: Error, Sendable, Hashable {
        /// The HTTP status, 100–599.
        public var status: Int

        /// Whether the status is the server's judgment of this request (a 4xx other than 404 and 405, which say
        /// the endpoint is not there, and 408 and 429, which say "later"): the same request in the URL would be
        /// refused too.
        public var judgesRequest: Bool { (400..<500).contains(status) && ![404, 405, 408, 429].contains(status) }
    }

    /// The longest `expires_in` accepted, in seconds (RFC 9126 §2.2 suggests 5 to 600).
    public static let maximumLifetime = 3600
    /// The longest `request_uri` accepted, in characters.
    public static let maximumRequestURILength = 2048

    /// The server; its ``ServiceConfiguration/pushedAuthorizationRequestEndpoint`` must be set.
    public let configuration: ServiceConfiguration
    /// The client, authenticated with its (negotiated) method.
    public let client: ClientCredentials
    private let http: OAuthHTTP
    private let logger: Logger

    /// A pusher for `client` at `configuration`.
    public init(
        configuration: ServiceConfiguration, client: ClientCredentials, http: OAuthHTTP = OAuthHTTP(),
        logger: Logger = Logger(label: "eua.oauth")
    ) {
        self.configuration = configuration
        self.client = client
        self.http = http
        self.logger = logger
    }

    /// Pushes the parameters of `authorizationURL` (the URL the agent would otherwise get, plain or with a request
    /// object) and returns the URL to give the agent instead: the authorization endpoint with `client_id` and
    /// `request_uri`.
    ///
    /// Throws `invalidOptions` when the server has no endpoint, `oauthError` (cause: ``OAuthErrorResponse``) when it
    /// refuses, and `presentationFailed` for a transport failure, an error status without an OAuth error (cause:
    /// ``Refusal``) or an answer that is not a valid push response (`request_uri` missing, not a string, empty, too
    /// long; `expires_in` missing or outside 1…``maximumLifetime``).
    public func push(_ authorizationURL: URL, signed: Bool) async throws -> (url: URL, response: Response) {
        guard let endpoint = configuration.pushedAuthorizationRequestEndpoint else {
            throw ExternalUserAgentError(
                .invalidOptions,
                "the server's metadata names no pushed_authorization_request_endpoint, so nothing can be pushed")
        }
        let own = Self.endpointItems(configuration.authorizationEndpoint, signed: signed)
        let parameters = QueryParameters.parse(authorizationURL).dropFirst(own.count)
            .filter { $0.name != "client_id" }.map { ($0.name, $0.value) }
        let audience = URL(string: configuration.issuer) ?? configuration.tokenEndpoint
        let (fields, authorization) = try TokenEndpoint.authenticate(client, Array(parameters), audience: audience)
        logger.debug(
            "pushed authorization request",
            metadata: [
                "endpoint": "\(endpoint.absoluteString)", "client_auth": "\(client.authenticationMethod.rawValue)",
            ])
        let answer: OAuthHTTP.Response
        do {
            answer = try await http.postForm(endpoint, fields: fields, authorization: authorization)
        } catch {
            throw ExternalUserAgentError(
                .presentationFailed,
                "the pushed authorization request to \(endpoint.absoluteString) failed: \(error)", underlying: error)
        }
        let response = try Self.interpret(status: answer.status, body: answer.body, endpoint: endpoint.absoluteString)
        var components = URLComponents(url: configuration.authorizationEndpoint, resolvingAgainstBaseURL: false)!
        let items = own + [("client_id", client.clientID), ("request_uri", response.requestURI)]
        components.percentEncodedQuery = items.map { FormCoding.escape($0.0) + "=" + FormCoding.escape($0.1) }
            .joined(separator: "&")
        return (components.url!, response)
    }

    /// The authorization endpoint's own query items, as ``AuthorizationRequest/url`` (which drops the reserved
    /// names) or a request object's URL (which keeps them all) puts them first.
    static func endpointItems(_ endpoint: URL, signed: Bool) -> [(String, String)] {
        QueryParameters.parse(endpoint)
            .filter { signed || !AuthorizationRequest.reservedParameters.contains($0.name) }
            .map { ($0.name, $0.value) }
    }

    /// Reads the push endpoint's answer: 201 (or 200) with `request_uri` and `expires_in`, else an OAuth error.
    static func interpret(status: Int, body: Data, endpoint: String) throws -> Response {
        guard status == 201 || status == 200 else {
            if let oauthError = try? JSONDecoder().decode(OAuthErrorResponse.self, from: body) {
                throw ExternalUserAgentError(
                    .oauthError,
                    "the pushed authorization request endpoint \(endpoint) refused the request (HTTP \(status)): "
                        + "\(oauthError)", underlying: oauthError)
            }
            throw ExternalUserAgentError(
                .presentationFailed,
                "the pushed authorization request endpoint \(endpoint) answered HTTP \(status) without an OAuth error",
                underlying: Refusal(status: status))
        }
        do {
            return try JSONDecoder().decode(Wire.self, from: body).response
        } catch let error as InvalidFieldError {
            throw ExternalUserAgentError(
                .presentationFailed,
                "the pushed authorization request endpoint \(endpoint) answered with a push response whose \(error) "
                    + "(RFC 9126 §2.2); nothing was shown to the person", underlying: error)
        } catch {
            throw ExternalUserAgentError(
                .presentationFailed,
                "the pushed authorization request endpoint \(endpoint) answered with a body that is not a JSON object")
        }
    }

    private struct Wire: Decodable {
        var response: Response
        enum CodingKeys: String, CodingKey {
            case requestURI = "request_uri"
            case expiresIn = "expires_in"
        }

        init(from decoder: any Decoder) throws {
            let fields = try JSONFields<CodingKeys>(decoder)
            let uri = try fields.string(.requestURI)
            guard !uri.isEmpty else { throw InvalidFieldError(field: "request_uri", problem: "is empty") }
            guard uri.count <= maximumRequestURILength,
                uri.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "\u{7F}" && ($0.asciiValue ?? 0) >= 0x20 })
            else {
                throw InvalidFieldError(
                    field: "request_uri",
                    problem:
                        "is longer than \(maximumRequestURILength) characters or has characters outside printable ASCII"
                )
            }
            guard let lifetime = try fields.seconds(.expiresIn, in: 1...maximumLifetime) else {
                throw InvalidFieldError(field: "expires_in", problem: "is missing")
            }
            response = Response(requestURI: uri, expiresIn: lifetime)
        }
    }
}
