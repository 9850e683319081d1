// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore
import ExternalUserAgentRules
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import Synchronization

/// An OAuth 2.0 / OpenID Connect authorization server on 127.0.0.1, for an app's tests.
///
/// It serves discovery (`/.well-known/openid-configuration`), a JWKS (`/jwks`), an authorization
/// endpoint (`/authorize`) that approves at once or shows an HTML login form
/// (``LocalAuthorizationServerOptions/AuthorizationPage``) and redirects with `code`, `state` and `iss`,
/// and a token endpoint (`/token`) that checks the client, the `redirect_uri` and the PKCE S256 verifier,
/// and answers the code and refresh grants with ID tokens signed RS256 or ES256 (or, for a client
/// registered that way, unsigned or HS256 with its secret: ``LocalAuthorizationServerOptions/keylessIDTokens``). Options can make it
/// misbehave on purpose (``LocalAuthorizationServerOptions/Misbehavior``), so a client's checks can be tested.
///
/// A test runs it for the length of a scope, which stops it however the test ends:
///
/// ```swift
/// try await LocalAuthorizationServer.withServer(.init(clientID: "my-app", subject: "alice")) { server in
///     // discover server.issuer, sign in with client id server.options.clientID …
/// }
/// ```
///
/// ``start(_:port:)`` and ``stop()`` are for a server whose life is not one scope (`eua demo`'s).
public final class LocalAuthorizationServer: Sendable {
    /// What the token endpoint was asked, for tests to inspect.
    public struct TokenRequestRecord: Sendable {
        /// The form's `grant_type` as sent (`authorization_code`, `refresh_token`, the device code grant's URN); empty
        /// when missing.
        public var grantType: String
        /// `client_secret_basic`, `client_secret_post`, `client_secret_jwt`, `private_key_jwt` or `none`.
        public var clientAuthentication: String
        /// The client id presented: the `Authorization: Basic` header's when there is one, else the form's
        /// `client_id`; `nil` when neither has one.
        public var clientID: String?
        /// The form's `redirect_uri`, when sent.
        public var redirectURI: String?
        /// The form's `code_verifier` (PKCE), when sent.
        public var codeVerifier: String?
        /// The authorization code or refresh token presented.
        public var grantValue: String?
        /// The client secret presented, taken like ``clientID`` (the `Authorization: Basic` header's, else the
        /// form's `client_secret`); `nil` when none was.
        public var clientSecret: String?
        /// The OAuth error the request was refused with (`invalid_grant`…); `nil` when it was not.
        public var refusal: String?
        /// The `aud` of the client assertion (`private_key_jwt`, `client_secret_jwt`), when one was sent.
        public var clientAssertionAudience: String?
        /// Every form parameter as sent, in order, repeated ones (`resource`) included.
        public var parameters: [(name: String, value: String)] = []

        /// The values of every form parameter named `name`, in order.
        public func values(of name: String) -> [String] { parameters.filter { $0.name == name }.map(\.value) }
    }

    /// An HTTP request the server received, on any path, as it came.
    public struct RequestRecord: Sendable {
        /// The HTTP method as sent (`GET`, `POST`).
        public var method: String
        /// Path and query as sent (percent-encoded), like `/cb?code=c0de&state=st`.
        public var target: String
        /// `HTTP/1.1`.
        public var version: String
        /// In the order sent, names as sent.
        public var headers: [(name: String, value: String)]

        /// The request line: `GET /cb?code=c0de HTTP/1.1`.
        public var requestLine: String { "\(method) \(target) \(version)" }

        /// The first header named `name` (any case).
        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    /// What a code or a refresh token stands for.
    struct Grant {
        var clientID: String
        var redirectURI: String
        var codeChallenge: String
        var nonce: String?
        var scope: String
        var subject: String
        var used = false
        /// The claims the `claims` parameter asked for in the ID token (OpenID Connect Core §5.5).
        var idTokenClaims: [String] = []
        /// `auth_time` and `acr` as the sign-in met `max_age` and `acr_values` (``LocalAuthenticationContext``).
        var context = LocalAuthenticationContext()
        /// The DPoP key thumbprint the grant is bound to: the request's `dpop_jkt`, a refresh token's proof key.
        var dpopJKT: String?
    }

    private struct State {
        var options: LocalAuthorizationServerOptions
        var signingKey: SigningKey
        var codes: [String: Grant] = [:]
        var refreshTokens: [String: Grant] = [:]
        var tokenRequests: [TokenRequestRecord] = []
        var authorizationRequests: [[String: String]] = []
        var requestLog: [RequestRecord] = []
        var jwksFetches = 0
        /// The subject of each access token issued.
        var accessTokens: [String: String] = [:]
        /// The client each access token was issued to.
        var accessTokenClients: [String: String] = [:]
        /// The client each ID token was issued to.
        var issuedIDTokens: [String: String] = [:]
        var userInfoRequests: [UserInfoRequestRecord] = []
        var registeredClients: [String: RegisteredClient] = [:]
        var requestObjects: [RequestObjectRecord] = []
        var revocations: [RevocationRecord] = []
        var endSessions: [EndSessionRecord] = []
    }

    /// `http://127.0.0.1:PORT`, the issuer identifier.
    public let issuer: String
    /// The TCP port the server listens on, on 127.0.0.1.
    public let port: Int
    private let http: LocalHTTPServer
    private let state: Mutex<State>
    /// The device authorization grant (RFC 8628), off until enabled.
    public let deviceAuthorization = LocalDeviceAuthorization()
    /// Pushed authorization requests (RFC 9126), off until enabled.
    public let pushedAuthorization = LocalPushedAuthorization()
    /// DPoP (RFC 9449) at the token endpoint, off until enabled.
    public let dpop = LocalDPoP()

    private init(http: LocalHTTPServer, options: LocalAuthorizationServerOptions, signingKey: SigningKey) {
        self.http = http
        self.port = http.port
        self.issuer = "http://127.0.0.1:\(http.port)"
        self.state = Mutex(State(options: options, signingKey: signingKey))
    }

    /// Starts a server on 127.0.0.1 (`port` 0: a free one); ``stop()`` stops it. A test uses
    /// ``withServer(_:port:isolation:_:)``, which stops it however the test ends.
    public static func start(_ options: LocalAuthorizationServerOptions = .init(), port: Int = 0) async throws
        -> LocalAuthorizationServer
    {
        let key = try await SigningKey.make(options.signingAlgorithm, kid: "key-\(randomString(8))")
        let http = try await LocalHTTPServer.bind(host: "127.0.0.1", port: port)
        let server = LocalAuthorizationServer(http: http, options: options, signingKey: key)
        do {
            try http.serve { [weak server] request in
                guard let server else { return .text(503, "stopped") }
                return server.respond(to: request)
            }
        } catch {
            await http.close()
            throw error
        }
        return server
    }

    /// Runs `body` with a server started on 127.0.0.1 (`port` 0: a free one) and stops the server however `body`
    /// ends — it returns, throws, or its task is cancelled — before this returns: the scoped form for a test.
    ///
    /// ```swift
    /// try await LocalAuthorizationServer.withServer { server in
    ///     let state = try await SignInFlow(issuer: server.issuer, client: ClientCredentials(clientID: "app")).run()
    /// }
    /// ```
    @discardableResult
    public static func withServer<Result>(
        _ options: LocalAuthorizationServerOptions = .init(), port: Int = 0,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (LocalAuthorizationServer) async throws -> Result
    ) async throws
        -> Result
    {
        let server = try await start(options, port: port)
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// Stops listening.
    public func stop() async {
        await http.close()
    }

    /// The options in force; change them with ``update(_:)``.
    public var options: LocalAuthorizationServerOptions { state.withLock { $0.options } }

    /// Changes the options of a running server (to misbehave from the next request on).
    public func update(_ change: (inout LocalAuthorizationServerOptions) -> Void) {
        state.withLock { change(&$0.options) }
    }

    /// Replaces the signing key with a new one (new `kid`), as a provider rotating its keys does.
    public func rotateSigningKey() async throws {
        let algorithm = options.signingAlgorithm
        let key = try await SigningKey.make(algorithm, kid: "key-\(Self.randomString(8))")
        state.withLock { $0.signingKey = key }
    }

    /// Every token request so far.
    public var tokenRequests: [TokenRequestRecord] { state.withLock { $0.tokenRequests } }
    /// The query of every authorization request so far.
    public var authorizationRequests: [[String: String]] { state.withLock { $0.authorizationRequests } }
    /// Every HTTP request so far, on any path (one on an unknown path is answered 404).
    public var requestLog: [RequestRecord] { state.withLock { $0.requestLog } }
    /// How many times the JWKS was fetched.
    public var jwksFetchCount: Int { state.withLock { $0.jwksFetches } }
    /// Every request object so far (RFC 9101), checked.
    public var requestObjects: [RequestObjectRecord] { state.withLock { $0.requestObjects } }
    func recordRequestObject(_ record: RequestObjectRecord) { state.withLock { $0.requestObjects.append(record) } }
    /// Every request to the revocation endpoint so far (RFC 7009).
    public var revocations: [RevocationRecord] { state.withLock { $0.revocations } }
    func record(_ revocation: RevocationRecord) { state.withLock { $0.revocations.append(revocation) } }
    /// Every request to the end-session endpoint so far (RP-Initiated Logout).
    public var endSessions: [EndSessionRecord] { state.withLock { $0.endSessions } }
    func record(_ endSession: EndSessionRecord) { state.withLock { $0.endSessions.append(endSession) } }
    /// Forgets `token` as a refresh or access token of `clientID`: it works no more. Returns what it was
    /// (`refresh_token`, `access_token`), or `nil` for a token this server does not know for that client.
    func revoke(token: String, clientID: String) -> String? {
        state.withLock { state in
            if let grant = state.refreshTokens[token], grant.clientID == clientID {
                state.refreshTokens[token] = nil
                return "refresh_token"
            }
            if state.accessTokens[token] != nil, state.accessTokenClients[token] == clientID {
                state.accessTokens[token] = nil
                return "access_token"
            }
            return nil
        }
    }
    /// The client an ID token was issued to; `nil` for one this server never issued.
    func client(ofIDToken token: String) -> String? { state.withLock { $0.issuedIDTokens[token] } }
    /// Whether `token` is a refresh token this server would still honour.
    public func isLiveRefreshToken(_ token: String) -> Bool {
        state.withLock { $0.refreshTokens[token].map { !$0.used } ?? false }
    }
    /// Whether `token` is an access token this server would still honour (at UserInfo).
    public func isLiveAccessToken(_ token: String) -> Bool { state.withLock { $0.accessTokens[token] != nil } }
    /// Every request to the UserInfo endpoint so far.
    public var userInfoRequests: [UserInfoRequestRecord] { state.withLock { $0.userInfoRequests } }

    /// The subject an access token was issued for; `nil` for one this server never issued.
    func subject(ofAccessToken token: String) -> String? { state.withLock { $0.accessTokens[token] } }
    /// Keeps a UserInfo request's record.
    func record(_ request: UserInfoRequestRecord) { state.withLock { $0.userInfoRequests.append(request) } }
    /// Keeps a token request's record; returns its index, for ``refuseTokenRequest(_:with:)``.
    func record(_ request: TokenRequestRecord) -> Int {
        state.withLock {
            $0.tokenRequests.append(request)
            return $0.tokenRequests.count - 1
        }
    }
    /// Notes in the record of token request `index` the OAuth error it was refused with.
    func refuseTokenRequest(_ index: Int, with error: String) {
        state.withLock { $0.tokenRequests[index].refusal = error }
    }
    /// The grant of an authorization code not used yet, which is used now; `nil` for an unknown or used code.
    func takeCode(_ code: String) -> Grant? {
        state.withLock { state in
            guard var grant = state.codes[code], !grant.used else { return nil }
            grant.used = true
            state.codes[code] = grant
            return grant
        }
    }
    /// The grant of a live refresh token, used up when `rotating`; else `nil`, and whether it was a used one.
    func takeRefreshToken(_ token: String, rotating: Bool) -> (grant: Grant?, wasUsed: Bool) {
        state.withLock { state in
            guard var grant = state.refreshTokens[token] else { return (nil, false) }
            guard !grant.used else { return (nil, true) }
            if rotating {
                grant.used = true
                state.refreshTokens[token] = grant
            }
            return (grant, false)
        }
    }
    /// Keeps a refresh token just issued.
    func store(refreshToken: String, for grant: Grant) { state.withLock { $0.refreshTokens[refreshToken] = grant } }
    /// Keeps an access token (and ID token) just issued for `grant`: its subject and client.
    func recordIssued(accessToken: String, idToken: String?, for grant: Grant) {
        state.withLock {
            $0.accessTokens[accessToken] = grant.subject
            $0.accessTokenClients[accessToken] = grant.clientID
            if let idToken { $0.issuedIDTokens[idToken] = grant.clientID }
        }
    }
    /// The key ID tokens are signed with now.
    var currentSigningKey: SigningKey { state.withLock { $0.signingKey } }
    /// Runs `change` on the registered clients, under the lock.
    func withRegisteredClients<T>(_ change: (inout [String: RegisteredClient]) -> T) -> T {
        state.withLock { change(&$0.registeredClients) }
    }

    // MARK: - Endpoints

    /// The answer to `request`, made on the connection's own thread (``LocalHTTPServer``): nothing here waits on
    /// Swift's cooperative pool, so a test process that keeps the pool busy still gets its answers in time.
    private func respond(to request: LocalHTTPServer.Request) -> LocalHTTPServer.Response {
        state.withLock {
            $0.requestLog.append(
                RequestRecord(
                    method: request.method, target: request.target, version: request.version,
                    headers: request.headers.map { (name: $0.0, value: $0.1) }))
        }
        switch (request.method, request.path) {
        case ("GET", "/.well-known/openid-configuration"), ("GET", "/.well-known/oauth-authorization-server"):
            return metadata()
        case ("GET", "/.well-known/webfinger"):
            return webFinger(request.query)
        case ("GET", "/jwks"):
            return jwks()
        case ("GET", "/authorize"):
            return authorize(request.query)
        case ("POST", "/authorize"):
            return submitLogin(request.form)
        case ("POST", "/token"):
            return token(request)
        case ("GET", "/userinfo") where options.servesUserinfo, ("POST", "/userinfo") where options.servesUserinfo:
            return userInfo(request)
        case ("POST", "/register") where options.offersRegistration:
            return register(request)
        case ("POST", "/revoke"):
            return revocation(request)
        case ("GET", "/end_session"), ("POST", "/end_session"):
            return endSession(request)
        case ("POST", "/par") where pushedAuthorization.settings.mode != .off:
            return pushAuthorization(request)
        case ("POST", "/device_authorization"):
            return deviceAuthorization.authorize(request, clientID: options.clientID, issuer: issuer)
        default:
            return .text(404, "not found")
        }
    }

    private func metadata() -> LocalHTTPServer.Response {
        let options = self.options
        let issuer = options.misbehaviors.contains(.wrongIssuerInMetadata) ? "http://issuer.invalid" : self.issuer
        return .json(
            MetadataDocument(
                issuer: issuer, authorization_endpoint: self.issuer + "/authorize",
                token_endpoint: self.issuer + "/token",
                jwks_uri: self.issuer + "/jwks",
                userinfo_endpoint: options.servesUserinfo ? self.issuer + "/userinfo" : nil,
                registration_endpoint: options.offersRegistration ? self.issuer + "/register" : nil,
                response_types_supported: ["code"],
                grant_types_supported: ["authorization_code", "refresh_token"],
                code_challenge_methods_supported: ["S256"],
                token_endpoint_auth_methods_supported: options.advertisedAuthMethods
                    ?? (options.clientSecret == nil
                        ? ["none"] : ["client_secret_basic", "client_secret_post"]),
                id_token_signing_alg_values_supported: [
                    options.keylessIDTokens?.rawValue ?? options.signingAlgorithm.rawValue
                ],
                scopes_supported: ["openid", "email", "profile", "offline_access"], subject_types_supported: ["public"],
                authorization_response_iss_parameter_supported: options.sendsIssuerInResponse,
                acr_values_supported: options.acrValuesSupported.isEmpty ? nil : options.acrValuesSupported,
                device_authorization_endpoint: deviceAuthorization.settings.enabled
                    ? self.issuer + "/device_authorization" : nil,
                revocation_endpoint: options.offersRevocation ? self.issuer + "/revoke" : nil,
                end_session_endpoint: options.offersEndSession ? self.issuer + "/end_session" : nil,
                pushed_authorization_request_endpoint: pushedAuthorization.settings.mode == .off
                    ? nil : self.issuer + "/par",
                dpop_signing_alg_values_supported: dpop.settings.enabled ? ["ES256"] : nil,
                require_pushed_authorization_requests: pushedAuthorization.settings.mode == .required ? true : nil))
    }

    private func jwks() -> LocalHTTPServer.Response {
        let key = state.withLock { state in
            state.jwksFetches += 1
            return state.signingKey
        }
        return .json(["keys": [key.publicJWK]])
    }

    /// The request parameters the login form carries back as hidden fields.
    private static let requestParameters = [
        "client_id", "redirect_uri", "response_type", "scope", "state", "nonce",
        "code_challenge", "code_challenge_method", "prompt", "login_hint", "claims",
        "max_age", "acr_values", "ui_locales", "dpop_jkt",
    ]

    /// `GET /authorize`: checks the request, then approves at once or shows the login form.
    private func authorize(_ sent: [String: String]) -> LocalHTTPServer.Response {
        state.withLock { $0.authorizationRequests.append(sent) }
        let unpushed: [String: String]
        switch pushedAuthorization.expand(sent) {
        case .success(let value): unpushed = value
        case .failure(let refusal): return .text(400, "invalid_request_uri: \(refusal.reason)")
        }
        let query: [String: String]
        switch expandRequestObject(unpushed) {
        case .success(let value): query = value
        case .failure(let refusal): return .text(400, "invalid_request_object: \(refusal.reason)")
        }
        let options = self.options(for: query["client_id"])
        let back: Back
        switch check(query, options: options) {
        case .success(let value): back = value
        case .failure(let refusal): return refusal.response
        }
        switch options.authorizationPage {
        case .autoApprove:
            return approve(query, subject: options.subject, options: options, back: back)
        case .loginForm:
            return .text(
                200, Self.loginPage(query, subject: options.subject, issuer: issuer),
                contentType: "text/html; charset=utf-8")
        }
    }

    /// What a browser ends up with when the person signs in as `subject` on this server's authorization page:
    /// the same checks and the same redirect (code, state, `iss`) as `GET /authorize` then the login form, but
    /// in process, with no HTTP — for ``FakeExternalUserAgent/Script/signIn(at:as:)``. A request the server
    /// refuses to redirect at all (unknown client, bad redirect URI) throws the page's text.
    public func signIn(authorizationURL: URL, as subject: String) throws(ExternalUserAgentError) -> URL {
        let options = self.options
        let query = LocalHTTPServer.Request.parseForm(
            URLComponents(url: authorizationURL, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "")
        state.withLock { $0.authorizationRequests.append(query) }
        let response: LocalHTTPServer.Response
        switch check(query, options: options) {
        case .success(let back): response = approve(query, subject: subject, options: options, back: back)
        case .failure(let refusal): response = refusal.response
        }
        guard response.status == 302, let location = response.headers.first(where: { $0.0 == "Location" })?.1,
            let url = URL(string: location)
        else {
            throw ExternalUserAgentError(
                .presentationFailed,
                "the local authorization server refused the request "
                    + "(\(response.status)): \(String(decoding: response.body, as: UTF8.self))")
        }
        return url
    }

    /// `POST /authorize`: the login form's answer; the request comes back in its hidden fields.
    private func submitLogin(_ form: [String: String]) -> LocalHTTPServer.Response {
        let options = self.options(for: form["client_id"])
        let query = form.filter { Self.requestParameters.contains($0.key) }
        let back: Back
        switch check(query, options: options) {
        case .success(let value): back = value
        case .failure(let refusal): return refusal.response
        }
        if form["action"] == "deny" {
            return back([
                ("error", "access_denied"), ("error_description", "The user pressed Deny"),
                ("state", responseState(query, options: options)),
            ])
        }
        let subject = String(
            (form["username"] ?? "").drop(while: \.isWhitespace).reversed()
                .drop(while: \.isWhitespace).reversed())
        guard !subject.isEmpty else {
            return .text(
                200,
                Self.loginPage(
                    query, subject: options.subject, issuer: issuer,
                    problem: "Enter a user name to sign in as."),
                contentType: "text/html; charset=utf-8")
        }
        return approve(query, subject: subject, options: options, back: back)
    }

    private typealias Back = ([(String, String?)]) -> LocalHTTPServer.Response

    /// Checks the client and the redirect URI (errors shown here), then the rest (errors sent back).
    /// On success, gives the function that redirects back with parameters.
    private func check(_ query: [String: String], options: LocalAuthorizationServerOptions)
        -> Result<Back, CheckFailure>
    {
        guard query["client_id"] == options.clientID else {
            return .failure(CheckFailure(.text(400, "unknown client_id '\(query["client_id"] ?? "")'")))
        }
        guard let redirectURI = query["redirect_uri"], let target = URLComponents(string: redirectURI),
            target.scheme == "http" || target.scheme == "https" || target.scheme?.contains(".") == true
        else {
            // A private-use scheme (RFC 8252 §7.1) is a reverse domain name: it holds a dot.
            return .failure(CheckFailure(.text(400, "missing or invalid redirect_uri")))
        }
        if let registered = registeredClient(query["client_id"]), !registered.allows(redirectURI: redirectURI) {
            return .failure(CheckFailure(.text(400, "redirect_uri is not one the client registered")))
        }
        let issuer = self.issuer
        let back: Back = { items in
            var target = target
            var all = target.queryItems ?? []
            all += items.compactMap { item in item.1.map { URLQueryItem(name: item.0, value: $0) } }
            var issuerValue: String? = options.sendsIssuerInResponse ? issuer : nil
            if options.misbehaviors.contains(.wrongIssuerInResponse) { issuerValue = "http://issuer.invalid" }
            if options.misbehaviors.contains(.missingIssuerInResponse) { issuerValue = nil }
            if let issuerValue { all.append(URLQueryItem(name: "iss", value: issuerValue)) }
            target.queryItems = all
            return .redirect(to: target.url?.absoluteString ?? redirectURI)
        }
        let state = responseState(query, options: options)
        guard query["response_type"] == "code" else {
            return .failure(CheckFailure(back([("error", "unsupported_response_type"), ("state", state)])))
        }
        guard query["code_challenge"] != nil, query["code_challenge_method"] == "S256" else {
            return .failure(
                CheckFailure(
                    back([
                        ("error", "invalid_request"),
                        ("error_description", "PKCE with S256 is required"), ("state", state),
                    ])))
        }
        return .success(back)
    }

    /// The `state` to send back: the request's, unless misbehaving.
    private func responseState(_ query: [String: String], options: LocalAuthorizationServerOptions) -> String? {
        options.misbehaviors.contains(.wrongState) ? "not-the-state-\(Self.randomString(8))" : query["state"]
    }

    /// Approves a checked request as `subject`: a code, or `access_denied` when misbehaving.
    private func approve(
        _ query: [String: String], subject: String, options: LocalAuthorizationServerOptions,
        back: Back
    ) -> LocalHTTPServer.Response {
        let state = responseState(query, options: options)
        if options.misbehaviors.contains(.denyAccess) {
            return back([("error", "access_denied"), ("error_description", "The user said no"), ("state", state)])
        }
        let code = Self.randomString(32)
        let grant = Grant(
            clientID: options.clientID, redirectURI: query["redirect_uri"] ?? "",
            codeChallenge: query["code_challenge"] ?? "", nonce: query["nonce"],
            scope: query["scope"] ?? "", subject: subject,
            idTokenClaims: Self.requestedIDTokenClaims(query["claims"]),
            context: LocalAuthenticationContext(query, supported: options.acrValuesSupported),
            dpopJKT: query["dpop_jkt"])
        self.state.withLock { $0.codes[code] = grant }
        return back([("code", code), ("state", state)])
    }

    /// The login form: the request in hidden fields, a user name, Sign in and Deny.
    static func loginPage(_ query: [String: String], subject: String, issuer: String, problem: String? = nil) -> String
    {
        let hidden = requestParameters.compactMap { name in
            query[name].map { "    <input type=\"hidden\" name=\"\(name)\" value=\"\(HTMLText.escaped($0))\">" }
        }.joined(separator: "\n")
        let scope = HTMLText.escaped(query["scope"] ?? "")
        let client = HTMLText.escaped(query["client_id"] ?? "")
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>Sign in — local authorization server</title></head>
            <body>
            <h1>Sign in</h1>
            <p>This is ExternalUserAgent's local authorization server at \(HTMLText.escaped(issuer)), for tests and demos.
            Client <code>\(client)</code> asks for <code>\(scope)</code>. No password: any user name signs in.</p>
            \(problem.map { "<p role=\"alert\">\(HTMLText.escaped($0))</p>" } ?? "")
            <form method="post" action="/authorize">
            \(hidden)
                <label>User name <input type="text" name="username" value="\(HTMLText.escaped(subject))" autofocus></label>
                <button type="submit" name="action" value="approve">Sign in</button>
                <button type="submit" name="action" value="deny">Deny</button>
            </form>
            </body></html>
            """
    }

    static func s256(_ verifier: String) -> String {
        SigningKey.base64URL(Data(SHA256.hash(data: Data(verifier.utf8))))
    }

    static func randomString(_ length: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
    }
}

/// A request `/authorize` refuses, and the answer it gets.
private struct CheckFailure: Error {
    var response: LocalHTTPServer.Response
    init(_ response: LocalHTTPServer.Response) { self.response = response }
}

private struct MetadataDocument: Encodable {
    var issuer: String
    var authorization_endpoint: String
    var token_endpoint: String
    var jwks_uri: String
    var userinfo_endpoint: String?
    var registration_endpoint: String?
    var response_types_supported: [String]
    var grant_types_supported: [String]
    var code_challenge_methods_supported: [String]
    var token_endpoint_auth_methods_supported: [String]
    var id_token_signing_alg_values_supported: [String]
    var scopes_supported: [String]
    var subject_types_supported: [String]
    var authorization_response_iss_parameter_supported: Bool
    var acr_values_supported: [String]?
    var device_authorization_endpoint: String?
    var revocation_endpoint: String?
    var end_session_endpoint: String?
    var pushed_authorization_request_endpoint: String?
    var dpop_signing_alg_values_supported: [String]?
    var require_pushed_authorization_requests: Bool?
}
