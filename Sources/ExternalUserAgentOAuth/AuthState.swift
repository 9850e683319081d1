// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore
import Logging

/// The outcome of a sign-in, kept fresh: the last authorization and token responses, and the
/// ID token's validated claims. The counterpart of AppAuth's `OIDAuthState`.
///
/// ``freshTokens(minimumValidity:force:)`` refreshes when the access token is expired or about to be,
/// one refresh at a time however many callers ask at once. With a ``file``, every change is saved, and
/// processes sharing the file take turns: a refresh holds the file's lock, reads what another process
/// saved meanwhile first (and uses its tokens when they are fresh enough), and never replaces a newer
/// saved state with an older one — so a provider that rotates refresh tokens does not log anyone out.
public actor AuthState {
    /// The provider's endpoints, as at sign-in (saved with the state).
    public nonisolated let configuration: ServiceConfiguration
    /// The client that signed in; after `load(from:…)`, with the secret and key
    /// given there (they are never saved).
    public nonisolated let client: ClientCredentials
    /// The scope that was asked for.
    public nonisolated let scope: String?
    /// The last successful authorization response (kept in memory only: its code is spent).
    public private(set) var lastAuthorizationResponse: AuthorizationResponse?
    /// The last token response, with the refresh and ID tokens of earlier ones when a refresh omits them.
    public private(set) var lastTokenResponse: TokenResponse?
    /// The claims of the last validated ID token.
    public private(set) var idTokenClaims: IDTokenClaims?
    /// Who signed in as the UserInfo endpoint said, when the sign-in brought no ID token (the device grant).
    public private(set) var identity: UserIdentity?
    /// Set when the server refused a refresh with `invalid_grant` (and kept in the file): sign in again.
    public private(set) var authorizationError: OAuthErrorResponse?
    /// Where the state is saved after each change, if anywhere.
    public nonisolated let file: AuthStateFile?
    /// The key of a DPoP sign-in (RFC 9449), which every refresh proves again; saved with the tokens, never printed.
    public nonisolated let dpopKey: DPoPKey?
    /// The sign-in's token request parameters — its `resource` indicators (RFC 8707 §2.2) and extra token
    /// parameters (``AuthorizationParameters/extraTokenParameters``) — sent again with every refresh; saved.
    public nonisolated let refreshParameters: [(name: String, value: String)]
    /// The tokens a sign-out revoked (``SignOut`` records them before its browser step): set, the state gives no
    /// token, refreshes nothing and asks for a new sign-in; saved with the state.
    public private(set) var revokedTokens: RevokedTokens?

    private let validator: IDTokenValidator
    private let endpoint: TokenEndpoint
    private let logger: Logger
    private var refreshing: Task<TokenResponse, any Error>?
    /// The file's revision this state was read at or last saved as; 0 when it did not come from the file.
    private var revision: Int

    /// A state from responses already at hand. With a `file`, the next save replaces what it holds.
    public init(
        configuration: ServiceConfiguration, client: ClientCredentials, scope: String?,
        authorizationResponse: AuthorizationResponse? = nil, tokenResponse: TokenResponse?,
        idTokenClaims: IDTokenClaims? = nil, authorizationError: OAuthErrorResponse? = nil,
        file: AuthStateFile? = nil, http: OAuthHTTP = OAuthHTTP(), logger: Logger = Logger(label: "eua.oauth"),
        dpopKey: DPoPKey? = nil, refreshParameters: [(name: String, value: String)] = []
    ) {
        self.init(
            configuration: configuration, client: client, scope: scope, authorizationResponse: authorizationResponse,
            tokenResponse: tokenResponse, idTokenClaims: idTokenClaims, identity: nil,
            authorizationError: authorizationError, file: file, revision: 0, http: http, logger: logger,
            dpopKey: dpopKey, refreshParameters: refreshParameters, revokedTokens: nil)
    }

    init(
        configuration: ServiceConfiguration, client: ClientCredentials, scope: String?,
        authorizationResponse: AuthorizationResponse?, tokenResponse: TokenResponse?,
        idTokenClaims: IDTokenClaims?, identity: UserIdentity?, authorizationError: OAuthErrorResponse?,
        file: AuthStateFile?, revision: Int, http: OAuthHTTP, logger: Logger, dpopKey: DPoPKey?,
        refreshParameters: [(name: String, value: String)], revokedTokens: RevokedTokens?
    ) {
        self.revokedTokens = revokedTokens
        self.configuration = configuration
        self.client = client
        self.scope = scope
        self.lastAuthorizationResponse = authorizationResponse
        self.lastTokenResponse = tokenResponse
        self.idTokenClaims = idTokenClaims
        self.identity = identity
        self.authorizationError = authorizationError
        self.file = file
        self.revision = revision
        self.validator = IDTokenValidator(configuration: configuration, client: client, http: http, logger: logger)
        var endpoint = TokenEndpoint(configuration: configuration, client: client, http: http, logger: logger)
        endpoint.dpopKey = dpopKey
        self.endpoint = endpoint
        self.dpopKey = dpopKey
        self.refreshParameters = refreshParameters
        self.logger = logger
    }

    /// Whether there are tokens to use: an access token that is still valid, or a refresh token
    /// to get one, and no refusal from the server since.
    public var isAuthorized: Bool {
        guard authorizationError == nil, revokedTokens == nil, let tokens = lastTokenResponse else { return false }
        if tokens.refreshToken != nil { return true }
        guard let expiry = tokens.accessTokenExpirationDate else { return true }
        return expiry > Date()
    }

    /// Whether the access token expires within `minimumValidity` (or has no known lifetime: never).
    public func needsRefresh(minimumValidity: Duration = .seconds(60), now: Date = Date()) -> Bool {
        guard let expiry = lastTokenResponse?.accessTokenExpirationDate else { return false }
        return expiry.timeIntervalSince(now) < Double(minimumValidity.components.seconds)
    }

    /// Tokens good for at least `minimumValidity`, refreshing first when needed (or when `force`).
    ///
    /// Concurrent callers share one refresh. With a ``file``, the refresh holds its lock (waiting up to
    /// ``AuthStateFile/lockTimeout`` for another process) and first takes in what another process saved
    /// since: tokens it refreshed meanwhile are returned when fresh enough, even with `force`.
    /// Throws `notAuthorized` when there is nothing to refresh with or the server refused the refresh
    /// token before (``authorizationError``; the server is not asked again), the token endpoint's errors
    /// (`invalid_grant` also sets ``authorizationError``), and the file's (`stateFileInvalid`, `timedOut`).
    public func freshTokens(minimumValidity: Duration = .seconds(60), force: Bool = false) async throws -> TokenResponse
    {
        let current = try usableTokens()
        if !force, !needsRefresh(minimumValidity: minimumValidity) { return current }
        if let refreshing { return try await refreshing.value }
        let task = Task { try await self.refreshTakingTurns(minimumValidity: minimumValidity, force: force) }
        refreshing = task
        defer { refreshing = nil }
        return try await task.value
    }

    /// The last tokens, unless there are none, a sign-out revoked them, or the server refused the refresh token.
    private func usableTokens() throws -> TokenResponse {
        if let revokedTokens { throw revokedTokens.error(file: file) }
        if let authorizationError {
            let saved = file.map { " (saved in \($0.path))" } ?? ""
            throw ExternalUserAgentError(
                .notAuthorized,
                "the server refused this sign-in's refresh token earlier with '\(authorizationError.error)'\(saved); "
                    + "sign in again", underlying: authorizationError, remedies: [.signIn])
        }
        guard let current = lastTokenResponse else {
            throw ExternalUserAgentError(.notAuthorized, "not signed in: there are no tokens yet; sign in first")
        }
        return current
    }

    /// Refreshes; with a file, holding its lock from reading what is saved to saving the result.
    private func refreshTakingTurns(minimumValidity: Duration, force: Bool) async throws -> TokenResponse {
        guard let file else { return try await refresh() }
        let lock = try await file.lock()
        defer { lock.release() }
        let before = lastTokenResponse?.accessToken
        try await takeInSaved(from: file)
        let current = try usableTokens()
        let refreshedElsewhere = current.accessToken != before
        if force && !refreshedElsewhere || needsRefresh(minimumValidity: minimumValidity) {
            return try await refresh()
        }
        logger.debug(
            "tokens refreshed by another process meanwhile; not refreshing", metadata: ["file": "\(file.path)"])
        return current
    }

    /// Takes in the file's state when another process saved a later revision since this one was read.
    private func takeInSaved(from file: AuthStateFile) async throws {
        guard revision > 0 else { return }
        let contents = try await file.load()
        guard contents.revision > revision else { return }
        guard contents.configuration.issuer == configuration.issuer, contents.client.clientID == client.clientID else {
            throw ExternalUserAgentError(
                .stateFileInvalid,
                "authorization state file \(file.path): another process signed in to '\(contents.configuration.issuer)' "
                    + "as client '\(contents.client.clientID)' in it since it was read; load it again")
        }
        lastTokenResponse = contents.tokenResponse
        idTokenClaims = contents.idTokenClaims
        identity = contents.identity
        authorizationError = contents.authorizationError
        revokedTokens = contents.revokedTokens
        revision = contents.revision
    }

    /// Asks the token endpoint for new tokens with the refresh token, and saves the answer (or an
    /// `invalid_grant` refusal). The caller holds the file's lock.
    private func refresh() async throws -> TokenResponse {
        guard let refreshToken = lastTokenResponse?.refreshToken else {
            throw ExternalUserAgentError(
                .notAuthorized,
                "the access token has expired and the server gave no refresh token; sign in again")
        }
        do {
            let response = try await endpoint.refresh(
                refreshToken: refreshToken,
                additionalParameters: refreshParameters.map { ($0.name, $0.value) })
            return try await update(with: response)
        } catch let error as ExternalUserAgentError {
            // invalid_grant: the refresh token is dead; other errors (invalid_client…) are the caller's to fix.
            if let oauthError = error.underlying as? OAuthErrorResponse, oauthError.error == "invalid_grant" {
                authorizationError = oauthError
                if let file { try? await persist(to: file) }
            }
            throw error
        }
    }

    /// Takes in a refreshed token response: keeps the old refresh and ID tokens when omitted,
    /// validates a new ID token (same issuer, audience and subject; the same `auth_time` and `acr`, so what the
    /// sign-in checked against `max_age` and `acr_values` still holds), and saves.
    private func update(with refreshed: TokenResponse) async throws -> TokenResponse {
        var merged = refreshed
        merged.refreshToken = refreshed.refreshToken ?? lastTokenResponse?.refreshToken
        if let idToken = refreshed.idToken {
            var claims = try await validator.validate(idToken, nonce: nil, delivery: .refresh)
            if let previous = idTokenClaims {
                try Self.checkRefreshed(claims, against: previous)
                // Absent from the refreshed token, the sign-in's values stay: the next refresh is checked against them.
                claims.authTime = claims.authTime ?? previous.authTime
                claims.authenticationContextClass =
                    claims.authenticationContextClass ?? previous.authenticationContextClass
            }
            idTokenClaims = claims
        } else {
            merged.idToken = lastTokenResponse?.idToken
        }
        lastTokenResponse = merged
        authorizationError = nil
        logger.debug("tokens refreshed", metadata: ["expires_in": "\(refreshed.expiresIn.map(String.init) ?? "-")"])
        if let file { try await persist(to: file) }
        return merged
    }

    /// A refreshed ID token speaks of the sign-in the state holds (OpenID Connect Core §12.2): the same subject, and
    /// when it carries `auth_time` or `acr`, the values the sign-in's ID token had (checked then against `max_age`
    /// and `acr_values`). Throws `idTokenInvalid` otherwise.
    static func checkRefreshed(_ claims: IDTokenClaims, against previous: IDTokenClaims) throws {
        guard previous.subject == claims.subject else {
            throw ExternalUserAgentError(
                .idTokenInvalid,
                "the refreshed ID token is for another subject than the one signed in; sign in again")
        }
        if let was = previous.authTime, let now = claims.authTime, now != was {
            throw ExternalUserAgentError(
                .idTokenInvalid,
                "the refreshed ID token's auth_time (\(now.formatted(.iso8601))) is not the sign-in's "
                    + "(\(was.formatted(.iso8601))); a refresh must not change it (OpenID Connect Core §12.2), so what was "
                    + "checked against max_age no longer holds; sign in again")
        }
        if let was = previous.authenticationContextClass, let now = claims.authenticationContextClass, now != was {
            throw ExternalUserAgentError(
                .idTokenInvalid,
                "the refreshed ID token's acr '\(now)' is not the sign-in's '\(was)', which was checked against the "
                    + "acr_values asked for; sign in again")
        }
    }

    /// Records a new sign-in's responses (used by ``SignIn``) and saves, replacing whatever the file held.
    func record(
        authorization: AuthorizationResponse?, tokens: TokenResponse, claims: IDTokenClaims?,
        identity: UserIdentity?
    ) async throws {
        lastAuthorizationResponse = authorization
        lastTokenResponse = tokens
        idTokenClaims = claims
        self.identity = identity
        authorizationError = nil
        revokedTokens = nil
        revision = 0
        if let file { try await save(to: file) }
    }

    /// Records that a sign-out revoked `kinds` and saves at once, holding the file's lock: the revoked tokens'
    /// values are dropped (the ID token is kept for the end-session request), and from now on the state gives no
    /// token. Throws the file's errors (`stateFileInvalid`, `timedOut` waiting for its lock).
    public func recordRevocation(_ kinds: [TokenRevocation.TokenKind], at date: Date = Date()) async throws {
        guard !kinds.isEmpty else { return }
        revokedTokens = RevokedTokens(kinds: kinds, date: date)
        if var tokens = lastTokenResponse {
            if kinds.contains(.refreshToken) { tokens.refreshToken = nil }
            if kinds.contains(.accessToken) { tokens.accessToken = "" }
            lastTokenResponse = tokens
        }
        if let file { try await save(to: file) }
    }

    /// Writes the state to `file` (atomically, mode 0600), holding its lock. The client secret is never written.
    ///
    /// To this state's own ``file``, a newer state saved there by another process since this one was read
    /// is never replaced (`stateFileInvalid`); any other file is replaced whatever it holds.
    public func save(to file: AuthStateFile) async throws {
        let lock = try await file.lock()
        defer { lock.release() }
        try await persist(to: file)
    }

    /// Writes the state to `file` (on a thread of its own: the write, its `fsync` and the Secret Service block); the
    /// caller holds its lock.
    private func persist(to file: AuthStateFile) async throws {
        let contents = self.contents
        let isOwn = file == self.file
        let written = try await file.save(contents, over: isOwn && revision > 0 ? revision : nil)
        if isOwn { revision = written }
    }

    /// What a state file holds of this state (the one place that lists it).
    var contents: AuthStateFile.Contents {
        AuthStateFile.Contents(
            configuration: configuration, client: client, scope: scope,
            tokenResponse: lastTokenResponse, idTokenClaims: idTokenClaims,
            identity: identity, authorizationError: authorizationError,
            dpopKey: dpopKey, refreshParameters: refreshParameters, revokedTokens: revokedTokens)
    }

    /// Reads a state saved by ``save(to:)``; later changes are saved to the same file.
    ///
    /// `clientSecret` (or, for `private_key_jwt`, `clientKey`) is needed again for a confidential client, since
    /// it is never saved. A saved
    /// ``authorizationError`` is read too: such a state is not ``isAuthorized``.
    /// Throws `stateFileInvalid` for a missing, corrupt, foreign or not-private file.
    public static func load(
        from file: AuthStateFile, clientSecret: String? = nil, clientKey: ClientSigningKey? = nil,
        http: OAuthHTTP = OAuthHTTP(), logger: Logger = Logger(label: "eua.oauth")
    ) throws -> AuthState {
        restored(
            try file.load(), from: file, clientSecret: clientSecret, clientKey: clientKey, http: http, logger: logger)
    }

    /// Reads a state saved by `save(to:)`, as the synchronous `load(from:…)` does, on a thread of its own: reading
    /// the file and the Secret Service block, and async code must not hold one of Swift's few cooperative threads.
    public static func load(
        from file: AuthStateFile, clientSecret: String? = nil, clientKey: ClientSigningKey? = nil,
        http: OAuthHTTP = OAuthHTTP(),
        logger: Logger = Logger(label: "eua.oauth")
    ) async throws -> AuthState {
        restored(
            try await file.load(), from: file, clientSecret: clientSecret, clientKey: clientKey, http: http,
            logger: logger)
    }

    private static func restored(
        _ contents: AuthStateFile.Contents, from file: AuthStateFile, clientSecret: String?,
        clientKey: ClientSigningKey?, http: OAuthHTTP, logger: Logger
    ) -> AuthState {
        var client = contents.client
        client.clientSecret = clientSecret
        client.signingKey = clientKey
        return AuthState(
            configuration: contents.configuration, client: client, scope: contents.scope,
            authorizationResponse: nil, tokenResponse: contents.tokenResponse,
            idTokenClaims: contents.idTokenClaims, identity: contents.identity,
            authorizationError: contents.authorizationError,
            file: file, revision: max(contents.revision, 1), http: http, logger: logger,
            dpopKey: contents.dpopKey, refreshParameters: contents.refreshParameters,
            revokedTokens: contents.revokedTokens)
    }
}
