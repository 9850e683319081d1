// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore
import ExternalUserAgentRules
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A request to a local server's end-session endpoint (OpenID Connect RP-Initiated Logout 1.0), as it came.
public struct EndSessionRecord: Sendable {
    /// `GET` or `POST`.
    public var method: String
    /// The parameters: the query of a GET, the form of a POST.
    public var parameters: [String: String]
    /// Whether the request target (the URL) held an `id_token_hint`.
    public var idTokenHintInURL: Bool
    /// Where the browser was sent back (the post-logout redirect URI with `state`); `nil` when it was not.
    public var redirectedTo: String?
    /// Why the request was refused (fixed text); `nil` when it was not.
    public var refusal: String?
}

extension LocalAuthorizationServer {
    /// `GET|POST /end_session` (RP-Initiated Logout §2, §3): checks `id_token_hint` when given (one this server
    /// issued, to `client_id` when that is given too), `client_id`, and `post_logout_redirect_uri` against the
    /// client's registered ones; then redirects there with `state`, or, with no redirect URI, shows a
    /// "signed out" page.
    func endSession(_ request: LocalHTTPServer.Request) -> LocalHTTPServer.Response {
        let parameters = request.method == "POST" ? request.form : request.query
        var record = EndSessionRecord(
            method: request.method, parameters: parameters,
            idTokenHintInURL: request.query["id_token_hint"] != nil, redirectedTo: nil, refusal: nil)
        func refuse(_ reason: String) -> LocalHTTPServer.Response {
            record.refusal = reason
            self.record(record)
            return .text(400, "end-session request refused: \(reason)")
        }
        if options.misbehaviors.contains(.endSessionNeedsHint), parameters["id_token_hint"] == nil {
            self.record(record)
            return .text(200, "", contentType: "text/html; charset=utf-8")
        }
        var clientID = parameters["client_id"]
        if let hint = parameters["id_token_hint"] {
            guard let issuedTo = client(ofIDToken: hint) else {
                return refuse("id_token_hint is not an ID token this server issued")
            }
            if let clientID, clientID != issuedTo {
                return refuse("id_token_hint was issued to another client than client_id")
            }
            clientID = issuedTo
        }
        if let clientID, options(for: clientID).clientID != clientID { return refuse("unknown client_id") }
        guard let redirect = parameters["post_logout_redirect_uri"] else {
            self.record(record)
            return .text(
                200,
                "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Signed out</title></head>"
                    + "<body><h1>You are signed out</h1><p>of the local authorization server at \(HTMLText.escaped(issuer)).</p>"
                    + "</body></html>", contentType: "text/html; charset=utf-8")
        }
        guard let clientID else { return refuse("post_logout_redirect_uri needs client_id or id_token_hint") }
        guard allowsPostLogout(redirect, clientID: clientID), var target = URLComponents(string: redirect) else {
            return refuse("post_logout_redirect_uri is not one the client registered")
        }
        if let state = parameters["state"] {
            target.queryItems = (target.queryItems ?? []) + [URLQueryItem(name: "state", value: state)]
        }
        let location = target.url?.absoluteString ?? redirect
        record.redirectedTo = location
        self.record(record)
        return .redirect(to: location)
    }

    /// What a browser ends up with on this server's end-session endpoint: the same checks, record and redirect as
    /// `GET /end_session`, in process — for ``FakeExternalUserAgent/Script/signOut(at:)``. A request the server
    /// refuses, or one with no post-logout redirect URI, throws `presentationFailed` with the page's text.
    public func signOut(endSessionURL: URL) throws(ExternalUserAgentError) -> URL {
        let components = URLComponents(url: endSessionURL, resolvingAgainstBaseURL: false)
        let request = LocalHTTPServer.Request(
            method: "GET",
            target: (components?.percentEncodedPath ?? "") + "?" + (components?.percentEncodedQuery ?? ""),
            version: "HTTP/1.1", path: components?.path ?? "",
            query: LocalHTTPServer.Request.parseForm(components?.percentEncodedQuery ?? ""), headers: [], body: [])
        let response = endSession(request)
        guard response.status == 302, let location = response.headers.first(where: { $0.0 == "Location" })?.1,
            let url = URL(string: location)
        else {
            throw ExternalUserAgentError(
                .presentationFailed,
                "the local authorization server did not send the browser back "
                    + "(HTTP \(response.status)): \(String(decoding: response.body, as: UTF8.self))")
        }
        return url
    }

    /// Whether `uri` is a registered post-logout redirect URI of `clientID` (a loopback one with any port).
    func allowsPostLogout(_ uri: String, clientID: String) -> Bool {
        guard let given = URLComponents(string: uri), let scheme = given.scheme, given.fragment == nil else {
            return false
        }
        let isLoopback = scheme == "http" && ["127.0.0.1", "[::1]", "::1", "localhost"].contains(given.host ?? "")
        let registered: [String]
        if let client = registeredClient(clientID) {
            let listed = client.request["post_logout_redirect_uris"].flatMap { value -> [String]? in
                guard case .array(let items) = value else { return nil }
                return items.compactMap(\.stringValue)
            }
            registered = listed ?? client.redirectURIs
        } else if let listed = options.postLogoutRedirectURIs {
            registered = listed
        } else {
            return isLoopback || (scheme != "http" && scheme != "https" && scheme.contains("."))
        }
        return registered.contains { text in
            guard var expected = URLComponents(string: text) else { return false }
            if isLoopback { expected.port = given.port }
            return expected.string == given.string
        }
    }
}
