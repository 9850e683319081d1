// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// `POST /token`: the client is checked, then the grant its request names — an authorization code, a refresh token
/// or a device code — is taken, then tokens are issued for it.
extension LocalAuthorizationServer {
    /// A refused token request: the OAuth error sent back, kept in the request's record.
    struct TokenRefusal: Error {
        var status: Int
        var error: String
        var description: String
    }

    func token(_ request: LocalHTTPServer.Request) -> LocalHTTPServer.Response {
        let form = request.form
        var (clientID, secret, method) = request.presentedClient
        let options = self.options(for: clientID)
        let assertion = form["client_assertion"] == nil ? nil : checkAssertion(form, options: options)
        if let assertion { method = assertion.method }
        let grantType = form["grant_type"] ?? ""
        let index = record(
            TokenRequestRecord(
                grantType: grantType, clientAuthentication: method, clientID: clientID,
                redirectURI: form["redirect_uri"], codeVerifier: form["code_verifier"],
                grantValue: form["code"] ?? form["refresh_token"], clientSecret: secret,
                clientAssertionAudience: assertion?.audience,
                parameters: request.orderedForm))
        let refuse = { (refusal: TokenRefusal) -> LocalHTTPServer.Response in
            self.refuseTokenRequest(index, with: refusal.error)
            return .json(["error": refusal.error, "error_description": refusal.description], status: refusal.status)
        }
        if let answer = misbehavingTokenAnswer(options) { return answer }
        if let refusal = checkClient(clientID, secret: secret, assertion: assertion, options: options) {
            return refuse(refusal)
        }

        var proofKey: String?
        switch dpop.check(request, url: issuer + "/token") {
        case .accepted(let thumbprint): proofKey = thumbprint
        case .refused(let response):
            refuseTokenRequest(index, with: "dpop")
            return response
        case .absent: proofKey = nil
        }

        let taken: Result<Grant, TokenRefusal>
        switch grantType {
        case "authorization_code": taken = authorizationCodeGrant(form)
        case "refresh_token": taken = refreshTokenGrant(form, options: options)
        case LocalDeviceAuthorization.grantType:
            let polled = deviceAuthorization.poll(deviceCode: form["device_code"] ?? "")
            guard let scope = polled.scope else { return polled.error ?? .text(500, "no answer") }
            taken = .success(
                Grant(
                    clientID: options.clientID, redirectURI: "", codeChallenge: "", nonce: nil,
                    scope: scope, subject: options.subject))
        default:
            taken = .failure(
                TokenRefusal(
                    status: 400, error: "unsupported_grant_type",
                    description: "grant_type '\(grantType)' is not supported"))
        }
        let grant: Grant
        switch taken {
        case .success(let value): grant = value
        case .failure(let refusal): return refuse(refusal)
        }
        if let bound = grant.dpopJKT, bound != proofKey {
            return refuse(
                TokenRefusal(
                    status: 400, error: "invalid_dpop_proof",
                    description: proofKey == nil
                        ? "this grant is bound to a DPoP key; send a proof"
                        : "the proof's key is not the one the grant is bound to (dpop_jkt or the refresh token's)"))
        }
        return issueTokens(
            for: grant, nonce: grantType == "authorization_code" ? grant.nonce : nil, proofKey: proofKey,
            options: options)
    }

    /// What the token endpoint answers when it misbehaves on purpose, after the delay of a slow one; `nil` to go on.
    private func misbehavingTokenAnswer(_ options: LocalAuthorizationServerOptions) -> LocalHTTPServer.Response? {
        if options.misbehaviors.contains(.slowTokenEndpoint) {
            Self.sleep(for: options.tokenEndpointDelay)
        }
        if options.misbehaviors.contains(.tokenEndpointServerError) {
            return .text(500, "Internal Server Error")
        }
        if options.misbehaviors.contains(.tokenEndpointHTML) {
            return .text(200, "<!doctype html><html><body><h1>Sign in</h1></body></html>", contentType: "text/html")
        }
        return nil
    }

    /// Why the client is refused (`invalid_client`): an unknown id, a wrong or missing secret or assertion, a secret
    /// from a public client; `nil` when it is accepted.
    private func checkClient(
        _ clientID: String?, secret: String?, assertion: (method: String, audience: String?, refusal: String?)?,
        options: LocalAuthorizationServerOptions
    ) -> TokenRefusal? {
        let refusal = { (description: String) in
            TokenRefusal(status: 401, error: "invalid_client", description: description)
        }
        guard clientID == options.clientID else { return refusal("unknown client") }
        if let assertion {
            if let problem = assertion.refusal { return refusal(problem) }
        } else if let expected = options.clientSecret {
            guard secret == expected else { return refusal("wrong or missing client secret") }
        } else if secret != nil {
            return refusal("this is a public client; it has no secret")
        }
        return nil
    }

    /// The authorization code grant: the code (once), its `redirect_uri` and the PKCE S256 verifier.
    private func authorizationCodeGrant(_ form: [String: String]) -> Result<Grant, TokenRefusal> {
        let refusal = { (description: String) in
            Result<Grant, TokenRefusal>.failure(
                TokenRefusal(status: 400, error: "invalid_grant", description: description))
        }
        guard let found = takeCode(form["code"] ?? "") else { return refusal("unknown or used code") }
        guard form["redirect_uri"] == found.redirectURI else {
            return refusal("redirect_uri differs from the authorization request's")
        }
        guard let verifier = form["code_verifier"], Self.s256(verifier) == found.codeChallenge else {
            return refusal("PKCE verification failed")
        }
        return .success(found)
    }

    /// The refresh token grant: a live refresh token, used up when the server rotates them.
    private func refreshTokenGrant(_ form: [String: String], options: LocalAuthorizationServerOptions)
        -> Result<Grant, TokenRefusal>
    {
        let taken = takeRefreshToken(form["refresh_token"] ?? "", rotating: options.rotatesRefreshTokens)
        guard let grant = taken.grant else {
            return .failure(
                TokenRefusal(
                    status: 400, error: "invalid_grant",
                    description: taken.wasUsed ? "refresh token already used" : "unknown refresh token"))
        }
        return .success(grant)
    }

    /// A new refresh token, access token and (for the `openid` scope) ID token for `grant`, bound to `proofKey`
    /// when the request had a DPoP proof.
    private func issueTokens(
        for grant: Grant, nonce: String?, proofKey: String?,
        options: LocalAuthorizationServerOptions
    ) -> LocalHTTPServer.Response {
        let refreshToken = "rt-" + Self.randomString(32)
        store(
            refreshToken: refreshToken,
            for: Grant(
                clientID: grant.clientID, redirectURI: grant.redirectURI,
                codeChallenge: "", nonce: nil, scope: grant.scope,
                subject: grant.subject, dpopJKT: proofKey))
        var idToken: String?
        if grant.scope.split(separator: " ").contains("openid") {
            do {
                idToken = try makeIDToken(
                    subject: grant.subject, nonce: nonce,
                    options: grant.context.adding(
                        to: Self.adding(
                            grant.idTokenClaims,
                            subject: grant.subject, to: options)))
            } catch {
                return .text(500, "signing failed: \(error)")
            }
        }
        let accessToken = "at-" + Self.randomString(32)
        recordIssued(accessToken: accessToken, idToken: idToken, for: grant)
        if let proofKey { dpop.bind(accessToken: accessToken, to: proofKey) }
        let tokenType = proofKey != nil && !dpop.settings.issuesBearer ? "DPoP" : "Bearer"
        let document = TokenDocument(
            access_token: accessToken, token_type: tokenType,
            expires_in: options.accessTokenLifetime, refresh_token: refreshToken,
            id_token: idToken, scope: grant.scope)
        guard !options.tokenResponseOverrides.isEmpty else { return .json(document) }
        return .json(RawJSON.overriding(document, with: options.tokenResponseOverrides))
    }

    /// An ID token for `subject`, signed (or not) as `options` say, misbehaving as they say.
    private func makeIDToken(subject: String, nonce: String?, options: LocalAuthorizationServerOptions) throws
        -> String
    {
        let now = Int(Date().timeIntervalSince1970)
        var claims = ServerIDTokenClaims(
            iss: issuer, sub: subject, aud: options.clientID, exp: now + 3600,
            iat: now, nonce: nonce, azp: nil, email: "\(subject)@example.com",
            preferred_username: subject)
        let misbehaviors = options.misbehaviors
        if misbehaviors.contains(.wrongIssuerInIDToken) { claims.iss = "http://issuer.invalid" }
        if misbehaviors.contains(.wrongAudience) { claims.aud = "another-client" }
        if misbehaviors.contains(.wrongNonce) { claims.nonce = "not-the-nonce" }
        if misbehaviors.contains(.expiredIDToken) {
            claims.iat = now - 7200
            claims.exp = now - 3600
        }
        let key =
            misbehaviors.contains(.unknownKeyID)
            ? try SigningKey.generate(options.signingAlgorithm, kid: "unpublished-\(Self.randomString(8))")
            : currentSigningKey
        let payload = RawClaims(values: RawJSON.overriding(claims, with: options.idTokenClaimOverrides))
        var token: String
        if let keyless = options.keylessIDTokens {
            token = try SymmetricJWT.make(payload, algorithm: keyless, secret: options.clientSecret)
        } else {
            token = options.idTokenClaimOverrides.isEmpty ? try key.sign(claims) : try key.sign(payload)
        }
        if misbehaviors.contains(.tamperedSignature), let dot = token.lastIndex(of: ".") {
            // Change the signature's first character: still base64url, no longer valid.
            let first = token.index(after: dot)
            let replacement: Character = token[first] == "A" ? "B" : "A"
            token.replaceSubrange(first...first, with: String(replacement))
        }
        return token
    }

    /// Blocks the calling thread (a connection's, not the pool's) for `duration`.
    private static func sleep(for duration: Duration) {
        let (seconds, attoseconds) = max(.zero, duration).components
        var request = timespec(tv_sec: Int(clamping: seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
    }
}

private struct TokenDocument: Encodable {
    var access_token: String
    var token_type: String
    var expires_in: Int
    var refresh_token: String
    var id_token: String?
    var scope: String
}
