// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentABI

/// A client registered at a local server's registration endpoint (RFC 7591, OpenID Connect Registration).
public struct RegisteredClient: Sendable {
    /// The client id the server issued (`dyn-…`).
    public var clientID: String
    /// The secret the server issued; `nil` for a client that authenticates with `none` or `private_key_jwt`.
    public var clientSecret: String?
    /// The request's `redirect_uris` (those that are strings), as sent.
    public var redirectURIs: [String]
    /// The request's `application_type`; `web` when it had none.
    public var applicationType: String
    /// The request's `token_endpoint_auth_method`; `client_secret_basic` when it had none (RFC 7591 §2).
    public var tokenEndpointAuthMethod: String
    /// The request's `id_token_signed_response_alg`, when it had one; the server then signs (or leaves unsigned)
    /// this client's ID tokens that way.
    public var idTokenSignedResponseAlg: String?
    /// The registration access token the server issued (RFC 7592).
    public var registrationAccessToken: String
    /// The request's JSON as it came.
    public var request: [String: JSONValue]
    /// The public keys of its `jwks` (for `private_key_jwt` and request objects).
    public var publicKeys: [JSONValue] {
        guard case .object(let set)? = request["jwks"], case .array(let keys)? = set["keys"] else { return [] }
        return keys
    }

    /// Whether `redirectURI` is one of the registered ones; for a loopback one the port may differ (RFC 8252 §7.3).
    func allows(redirectURI: String) -> Bool {
        guard let given = URLComponents(string: redirectURI) else { return false }
        return redirectURIs.contains { registered in
            guard var expected = URLComponents(string: registered) else { return false }
            if given.scheme == "http", ["127.0.0.1", "[::1]", "::1"].contains(given.host ?? "") {
                expected.port = given.port
            }
            return expected.string == given.string
        }
    }
}

extension LocalAuthorizationServer {
    /// Every client registered so far, by client id.
    public var registeredClients: [String: RegisteredClient] { withRegisteredClients { $0 } }

    func registeredClient(_ clientID: String?) -> RegisteredClient? {
        clientID.flatMap { id in withRegisteredClients { $0[id] } }
    }

    /// The options in force for a request of `clientID`: a registered client's id, secret and ID token
    /// algorithm over the options' own.
    func options(for clientID: String?) -> LocalAuthorizationServerOptions {
        var options = self.options
        guard let client = registeredClient(clientID) else { return options }
        options.clientID = client.clientID
        options.clientSecret = client.clientSecret
        if !client.publicKeys.isEmpty { options.clientPublicKeys = client.publicKeys }
        if let alg = client.idTokenSignedResponseAlg {
            options.keylessIDTokens = LocalAuthorizationServerOptions.KeylessAlgorithm(rawValue: alg)
            if let algorithm = LocalAuthorizationServerOptions.SigningAlgorithm(rawValue: alg) {
                options.signingAlgorithm = algorithm
            }
        }
        return options
    }

    /// `POST /register`: registers a client from its JSON metadata and answers 201 with its id (and secret,
    /// unless it authenticates with `none` or `private_key_jwt`), or 400 with `invalid_redirect_uri` /
    /// `invalid_client_metadata`.
    func register(_ request: LocalHTTPServer.Request) -> LocalHTTPServer.Response {
        if options.misbehaviors.contains(.registrationEndpointHTML) {
            return .text(
                403,
                "<!doctype html><html><head><title>403 Forbidden</title><style>h1 { color: red }</style>"
                    + "<script>var x = '<b>';</script></head><body><h1>Forbidden</h1><p>Dynamic registration is closed "
                    + "for this realm: ask the administrator&#39;s desk &amp; try again.</p></body></html>",
                contentType: "text/html; charset=utf-8")
        }
        guard request.header("Content-Type")?.lowercased().hasPrefix("application/json") == true,
            case .object(let metadata)? = try? JSONDecoder().decode(JSONValue.self, from: Data(request.body))
        else {
            return .json(
                ["error": "invalid_client_metadata", "error_description": "the body must be a JSON object"],
                status: 400)
        }
        func refuse(_ error: String, _ description: String) -> LocalHTTPServer.Response {
            .json(["error": error, "error_description": description], status: 400)
        }
        guard case .array(let list)? = metadata["redirect_uris"], !list.isEmpty else {
            return refuse("invalid_redirect_uri", "redirect_uris is required")
        }
        let redirectURIs = list.compactMap(\.stringValue)
        let applicationType = metadata["application_type"]?.stringValue ?? "web"
        for uri in redirectURIs {
            guard let parts = URLComponents(string: uri), let scheme = parts.scheme else {
                return refuse("invalid_redirect_uri", "'\(uri)' is not a URI")
            }
            // OpenID Connect Registration §2: a native client uses a private-use scheme or http on loopback.
            if applicationType == "native",
                scheme == "https"
                    || (scheme == "http"
                        && !["127.0.0.1", "localhost", "[::1]", "::1"].contains(parts.host ?? ""))
            {
                return refuse(
                    "invalid_redirect_uri",
                    "a native client's redirect URI must be loopback http or a private-use scheme")
            }
        }
        let method = metadata["token_endpoint_auth_method"]?.stringValue ?? "client_secret_basic"
        guard
            ["none", "client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt"].contains(
                method)
        else {
            return refuse("invalid_client_metadata", "token_endpoint_auth_method '\(method)' is not supported")
        }
        let alg = metadata["id_token_signed_response_alg"]?.stringValue
        if let alg, LocalAuthorizationServerOptions.SigningAlgorithm(rawValue: alg) == nil,
            LocalAuthorizationServerOptions.KeylessAlgorithm(rawValue: alg) == nil
        {
            return refuse("invalid_client_metadata", "id_token_signed_response_alg '\(alg)' is not supported")
        }
        let client = RegisteredClient(
            clientID: "dyn-" + Self.randomString(16),
            clientSecret: method == "none" || method == "private_key_jwt" ? nil : "secret-" + Self.randomString(24),
            redirectURIs: redirectURIs, applicationType: applicationType, tokenEndpointAuthMethod: method,
            idTokenSignedResponseAlg: alg, registrationAccessToken: "reg-" + Self.randomString(32), request: metadata)
        withRegisteredClients { $0[client.clientID] = client }
        var answer = metadata
        answer["client_id"] = .string(client.clientID)
        answer["client_id_issued_at"] = .number(Date().timeIntervalSince1970.rounded(.down))
        answer["application_type"] = .string(applicationType)
        answer["token_endpoint_auth_method"] = .string(method)
        answer["registration_access_token"] = .string(client.registrationAccessToken)
        answer["registration_client_uri"] = .string(issuer + "/register/" + client.clientID)
        if let secret = client.clientSecret {
            answer["client_secret"] = .string(secret)
            answer["client_secret_expires_at"] = .number(0)
        }
        return .json(answer, status: 201)
    }
}
