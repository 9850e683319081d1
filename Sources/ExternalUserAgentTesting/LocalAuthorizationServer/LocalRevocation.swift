// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A request to a local server's revocation endpoint (RFC 7009), as it came.
public struct RevocationRecord: Sendable {
    /// The form's `token_type_hint`, when sent.
    public var tokenTypeHint: String?
    /// What the token was: `refresh_token`, `access_token`, or `nil` when the server did not know it (it still
    /// answers 200, RFC 7009 §2.2) or refused the request.
    public var revoked: String?
    /// `client_secret_basic`, `client_secret_post` or `none`.
    public var clientAuthentication: String
    /// The client id presented (the Basic header's, else the form's `client_id`).
    public var clientID: String?
    /// The OAuth error the request was refused with (`invalid_client`, `invalid_request`); `nil` when it was not.
    public var refusal: String?
}

extension LocalAuthorizationServer {
    /// `POST /revoke` (RFC 7009 §2): authenticates the client as the token endpoint does (public: `client_id`;
    /// confidential: its secret, Basic or in the form), then forgets the token, so a revoked refresh token
    /// fails at `/token` and a revoked access token at `/userinfo`. An unknown token answers 200 too.
    func revocation(_ request: LocalHTTPServer.Request) -> LocalHTTPServer.Response {
        let form = request.form
        let (clientID, secret, method) = request.presentedClient
        var record = RevocationRecord(
            tokenTypeHint: form["token_type_hint"], revoked: nil, clientAuthentication: method,
            clientID: clientID, refusal: nil)
        func refuse(_ status: Int, _ error: String, _ description: String) -> LocalHTTPServer.Response {
            record.refusal = error
            self.record(record)
            return .json(["error": error, "error_description": description], status: status)
        }
        let options = self.options(for: clientID)
        guard let clientID, clientID == options.clientID else { return refuse(401, "invalid_client", "unknown client") }
        if let expected = options.clientSecret {
            guard secret == expected else { return refuse(401, "invalid_client", "wrong or missing client secret") }
        } else if secret != nil {
            return refuse(401, "invalid_client", "this is a public client; it has no secret")
        }
        guard let token = form["token"], !token.isEmpty else {
            return refuse(400, "invalid_request", "token is required")
        }
        record.revoked = revoke(token: token, clientID: clientID)
        self.record(record)
        return LocalHTTPServer.Response(status: 200, headers: [("Cache-Control", "no-store")])
    }
}
