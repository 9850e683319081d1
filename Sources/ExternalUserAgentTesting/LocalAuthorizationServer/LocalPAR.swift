// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
import ExternalUserAgentABI

/// The local server's pushed authorization request endpoint (RFC 9126, `POST /par`), off until enabled.
///
/// A push is checked like a token request's client (secret in the body or `Authorization: Basic`, an assertion
/// with the issuer or the token endpoint as `aud`, or a public client's `client_id`); its parameters are kept under
/// a one-time `request_uri` (`urn:ietf:params:oauth:request_uri:…`) for ``Settings/lifetime`` seconds, which
/// `GET /authorize` then takes in their place. With ``Mode/required``, `/authorize` refuses a request without one.
public final class LocalPushedAuthorization: Sendable {
    /// Whether the server offers or requires pushing.
    public enum Mode: String, Sendable, CaseIterable {
        /// No endpoint is advertised or served.
        case off
        /// `pushed_authorization_request_endpoint` is advertised; plain requests still work.
        case offered
        /// `require_pushed_authorization_requests` is advertised too; `/authorize` takes only pushed requests.
        case required
    }

    /// How the endpoint behaves.
    public struct Settings: Sendable {
        /// Off, offered or required.
        public var mode: Mode = .off
        /// The `expires_in` answered and the `request_uri`'s lifetime, in seconds.
        public var lifetime = 60
        /// Fields of the answer replaced by raw JSON text (`["expires_in": "1e9"]`); an empty text leaves one out.
        public var responseOverrides: [String: String] = [:]
    }

    /// A push the endpoint received.
    public struct Record: Sendable {
        /// The form as sent, in order, client authentication included.
        public var parameters: [(name: String, value: String)]
        /// `client_secret_basic`, `client_secret_post`, `client_secret_jwt`, `private_key_jwt` or `none`.
        public var clientAuthentication: String
        /// The `request_uri` answered; `nil` when the push was refused.
        public var requestURI: String?
        /// The OAuth error the push was refused with.
        public var refusal: String?
    }

    private struct Pushed {
        var parameters: [String: String]
        var expires: Date
        var used = false
    }

    private struct State {
        var settings = Settings()
        var records: [Record] = []
        var pushed: [String: Pushed] = [:]
        var uses: [String] = []
    }

    private let state = Mutex(State())

    init() {}

    /// The settings in force.
    public var settings: Settings { state.withLock { $0.settings } }
    /// Changes the settings (`$0.mode = .required`).
    public func update(_ change: (inout Settings) -> Void) { state.withLock { change(&$0.settings) } }
    /// Every push so far.
    public var records: [Record] { state.withLock { $0.records } }
    /// Every `request_uri` an authorization request presented, in order (used, expired or unknown alike).
    public var requestURIUses: [String] { state.withLock { $0.uses } }

    /// `POST /par`: `authenticate` checks the client (the token endpoint's rules) and gives its method and refusal.
    func push(
        _ form: [(name: String, value: String)], clientID: String?, method: String, refusal: String?,
        registeredClientID: String
    ) -> LocalHTTPServer.Response {
        var record = Record(parameters: form, clientAuthentication: method)
        let refuse = { (status: Int, error: String, description: String) -> LocalHTTPServer.Response in
            record.refusal = error
            self.state.withLock { $0.records.append(record) }
            return .json(["error": error, "error_description": description], status: status)
        }
        guard clientID == registeredClientID else { return refuse(401, "invalid_client", "unknown client") }
        if let refusal { return refuse(401, "invalid_client", refusal) }
        let fields = Dictionary(form.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        guard fields["request_uri"] == nil else {
            return refuse(400, "invalid_request", "request_uri cannot be pushed (RFC 9126 §2.1)")
        }
        var parameters = fields.filter {
            !["client_secret", "client_assertion", "client_assertion_type"].contains($0.key)
        }
        parameters["client_id"] = clientID
        let settings = self.settings
        let uri = "urn:ietf:params:oauth:request_uri:" + LocalAuthorizationServer.randomString(24)
        record.requestURI = uri
        state.withLock {
            $0.records.append(record)
            $0.pushed[uri] = Pushed(
                parameters: parameters, expires: Date().addingTimeInterval(Double(settings.lifetime)))
        }
        let document: [String: JSONValue] = [
            "request_uri": .string(uri), "expires_in": .number(Double(settings.lifetime)),
        ]
        let answer = RawJSON.overriding(document, with: settings.responseOverrides)
        return .json(answer, status: 201)
    }

    /// The query `/authorize` works with: the pushed parameters for a `request_uri` (once, unexpired, same client),
    /// the query itself without one (refused when pushing is required).
    func expand(_ query: [String: String]) -> Result<[String: String], LocalPushedRefusal> {
        guard let uri = query["request_uri"] else {
            return settings.mode == .required
                ? .failure(LocalPushedRefusal(reason: "this server requires pushed authorization requests (RFC 9126)"))
                : .success(query)
        }
        return state.withLock { state in
            state.uses.append(uri)
            guard var pushed = state.pushed[uri] else {
                return .failure(LocalPushedRefusal(reason: "unknown request_uri"))
            }
            guard !pushed.used else { return .failure(LocalPushedRefusal(reason: "request_uri already used")) }
            guard pushed.expires > Date() else { return .failure(LocalPushedRefusal(reason: "request_uri expired")) }
            guard pushed.parameters["client_id"] == query["client_id"] else {
                return .failure(LocalPushedRefusal(reason: "client_id is not the pushing client's"))
            }
            pushed.used = true
            state.pushed[uri] = pushed
            return .success(pushed.parameters)
        }
    }
}

/// Why `/authorize` refused a request_uri.
struct LocalPushedRefusal: Error {
    var reason: String
}

extension LocalAuthorizationServer {
    /// `POST /par`: the client checked as at the token endpoint, then the push kept.
    func pushAuthorization(_ request: LocalHTTPServer.Request) -> LocalHTTPServer.Response {
        let form = request.form
        var (clientID, secret, method) = request.presentedClient
        let options = self.options(for: clientID)
        var refusal: String?
        if form["client_assertion"] != nil {
            let assertion = checkAssertion(form, options: options, audiences: [issuer, issuer + "/token"])
            method = assertion.method
            refusal = assertion.refusal
        } else if let expected = options.clientSecret {
            if secret != expected { refusal = "wrong or missing client secret" }
        } else if secret != nil {
            refusal = "this is a public client; it has no secret"
        }
        return pushedAuthorization.push(
            request.orderedForm, clientID: clientID, method: method, refusal: refusal,
            registeredClientID: options.clientID)
    }
}
