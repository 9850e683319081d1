#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgent
import Logging

/// The outcome of a sign-in, kept fresh: the last authorization and token responses, and the
/// ID token's validated claims. The counterpart of AppAuth's `OIDAuthState`.
///
/// ``freshTokens(minimumValidity:)`` refreshes when the access token is expired or about to be,
/// one refresh at a time however many callers ask at once. With a ``file``, every change is saved.
public actor AuthState {
    public nonisolated let configuration: ServiceConfiguration
    public nonisolated let client: ClientCredentials
    /// The scope that was asked for.
    public nonisolated let scope: String?
    /// The last successful authorization response (kept in memory only: its code is spent).
    public private(set) var lastAuthorizationResponse: AuthorizationResponse?
    /// The last token response, with the refresh and ID tokens of earlier ones when a refresh omits them.
    public private(set) var lastTokenResponse: TokenResponse?
    /// The claims of the last validated ID token.
    public private(set) var idTokenClaims: IDTokenClaims?
    /// Set when the server refused a refresh with `invalid_grant`: sign in again.
    public private(set) var authorizationError: OAuthErrorResponse?
    /// Where the state is saved after each change, if anywhere.
    public nonisolated let file: AuthStateFile?

    private let validator: IDTokenValidator
    private let endpoint: TokenEndpoint
    private let logger: Logger
    private var refreshing: Task<TokenResponse, any Error>?

    public init(configuration: ServiceConfiguration, client: ClientCredentials, scope: String?,
                authorizationResponse: AuthorizationResponse? = nil, tokenResponse: TokenResponse?,
                idTokenClaims: IDTokenClaims? = nil, file: AuthStateFile? = nil, http: OAuthHTTP = OAuthHTTP(),
                logger: Logger = Logger(label: "eua.oauth")) {
        self.configuration = configuration
        self.client = client
        self.scope = scope
        self.lastAuthorizationResponse = authorizationResponse
        self.lastTokenResponse = tokenResponse
        self.idTokenClaims = idTokenClaims
        self.file = file
        self.validator = IDTokenValidator(configuration: configuration, clientID: client.clientID, http: http, logger: logger)
        self.endpoint = TokenEndpoint(configuration: configuration, client: client, http: http, logger: logger)
        self.logger = logger
    }

    /// Whether there are tokens to use: an access token that is still valid, or a refresh token
    /// to get one, and no refusal from the server since.
    public var isAuthorized: Bool {
        guard authorizationError == nil, let tokens = lastTokenResponse else { return false }
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
    /// Concurrent callers share one refresh. Throws `notAuthorized` when there is nothing to refresh
    /// with, and the token endpoint's errors otherwise (`invalid_grant` also sets ``authorizationError``).
    public func freshTokens(minimumValidity: Duration = .seconds(60), force: Bool = false) async throws -> TokenResponse {
        guard let current = lastTokenResponse else {
            throw ExternalUserAgentError(.notAuthorized, "not signed in: there are no tokens yet; sign in first")
        }
        if !force, !needsRefresh(minimumValidity: minimumValidity) { return current }
        if let refreshing { return try await refreshing.value }
        guard let refreshToken = current.refreshToken else {
            throw ExternalUserAgentError(.notAuthorized,
                "the access token has expired and the server gave no refresh token; sign in again")
        }
        let endpoint = self.endpoint
        let task = Task { try await endpoint.refresh(refreshToken: refreshToken) }
        refreshing = task
        defer { refreshing = nil }
        do {
            let response = try await task.value
            return try await update(with: response)
        } catch let error as ExternalUserAgentError {
            // invalid_grant: the refresh token is dead; other errors (invalid_client…) are the caller's to fix.
            if let oauthError = error.underlying as? OAuthErrorResponse, oauthError.error == "invalid_grant" {
                authorizationError = oauthError
                if let file { try? save(to: file) }
            }
            throw error
        }
    }

    /// Takes in a refreshed token response: keeps the old refresh and ID tokens when omitted,
    /// validates a new ID token (same issuer, audience and subject), and saves.
    private func update(with refreshed: TokenResponse) async throws -> TokenResponse {
        var merged = refreshed
        merged.refreshToken = refreshed.refreshToken ?? lastTokenResponse?.refreshToken
        if let idToken = refreshed.idToken {
            let claims = try await validator.validate(idToken, nonce: nil)
            if let previous = idTokenClaims, previous.subject != claims.subject {
                throw ExternalUserAgentError(.idTokenInvalid,
                    "the refreshed ID token is for another subject than the one signed in; sign in again")
            }
            idTokenClaims = claims
        } else {
            merged.idToken = lastTokenResponse?.idToken
        }
        lastTokenResponse = merged
        authorizationError = nil
        logger.debug("tokens refreshed", metadata: ["expires_in": "\(refreshed.expiresIn.map(String.init) ?? "-")"])
        if let file { try save(to: file) }
        return merged
    }

    /// Records a new sign-in's responses (used by ``SignIn``) and saves.
    func record(authorization: AuthorizationResponse?, tokens: TokenResponse, claims: IDTokenClaims?) throws {
        lastAuthorizationResponse = authorization
        lastTokenResponse = tokens
        idTokenClaims = claims
        authorizationError = nil
        if let file { try save(to: file) }
    }

    /// Writes the state to `file` (atomically, mode 0600). The client secret is never written.
    public func save(to file: AuthStateFile) throws {
        try file.save(AuthStateFile.Contents(configuration: configuration, client: client, scope: scope,
                                              tokenResponse: lastTokenResponse, idTokenClaims: idTokenClaims,
                                              authorizationError: authorizationError))
    }

    /// Reads a state saved by ``save(to:)``; later changes are saved to the same file.
    ///
    /// `clientSecret` is needed again for a confidential client, since it is never saved.
    /// Throws `stateFileInvalid` for a missing, corrupt, foreign or not-private file.
    public static func load(from file: AuthStateFile, clientSecret: String? = nil, http: OAuthHTTP = OAuthHTTP(),
                            logger: Logger = Logger(label: "eua.oauth")) throws -> AuthState {
        let contents = try file.load()
        var client = contents.client
        client.clientSecret = clientSecret
        let state = AuthState(configuration: contents.configuration, client: client, scope: contents.scope,
                              tokenResponse: contents.tokenResponse, idTokenClaims: contents.idTokenClaims,
                              file: file, http: http, logger: logger)
        return state
    }
}
