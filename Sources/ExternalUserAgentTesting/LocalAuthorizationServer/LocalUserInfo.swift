// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentABI

/// A request to a local server's UserInfo endpoint, as it came.
public struct UserInfoRequestRecord: Sendable {
    /// `header` (`Authorization: Bearer`), `dpop` (`Authorization: DPoP` with a valid proof), `body` (`access_token`
    /// in a form POST) or `none`.
    public var tokenPlacement: String
    /// Whether the token was one this server issued.
    public var knownToken: Bool
    /// The subject the answer named; `nil` when the request was refused.
    public var answeredSubject: String?
}

extension LocalAuthorizationServer {
    /// `GET|POST /userinfo` (OpenID Connect Core §5.3): the claims of the access token's subject, as JSON or,
    /// with ``LocalAuthorizationServerOptions/signsUserInfo``, as a JWT signed with the ID token key.
    func userInfo(_ request: LocalHTTPServer.Request) -> LocalHTTPServer.Response {
        let options = self.options
        var token: String?
        var placement = "none"
        if let authorization = request.header("Authorization"), authorization.lowercased().hasPrefix("bearer ") {
            token = String(authorization.dropFirst(7))
            placement = "header"
        } else if let authorization = request.header("Authorization"), authorization.hasPrefix("DPoP ") {
            token = String(authorization.dropFirst(5))
            placement = "dpop"
        } else if request.method == "POST", let value = request.form["access_token"] {
            token = value
            placement = "body"
        }
        if let token,
            let refusal = dpop.checkResource(
                request, accessToken: token, scheme: placement,
                url: issuer + "/userinfo")
        {
            record(UserInfoRequestRecord(tokenPlacement: placement, knownToken: true, answeredSubject: nil))
            var response = LocalHTTPServer.Response.json(
                ["error": "invalid_token", "error_description": refusal], status: 401)
            response.headers.append(("WWW-Authenticate", "DPoP error=\"invalid_token\""))
            return response
        }
        guard let token, let subject = subject(ofAccessToken: token) else {
            record(UserInfoRequestRecord(tokenPlacement: placement, knownToken: false, answeredSubject: nil))
            var response = LocalHTTPServer.Response.json(["error": "invalid_token"], status: 401)
            response.headers.append(("WWW-Authenticate", "Bearer error=\"invalid_token\""))
            return response
        }
        let answered = options.misbehaviors.contains(.wrongUserInfoSubject) ? "mallory" : subject
        record(UserInfoRequestRecord(tokenPlacement: placement, knownToken: true, answeredSubject: answered))
        var claims: [String: JSONValue] = [
            "sub": .string(answered), "email": .string("\(answered)@example.com"), "email_verified": .bool(true),
            "preferred_username": .string(answered), "name": .string(options.userinfoName ?? answered.capitalized),
        ]
        if options.signsUserInfo {
            claims["iss"] = .string(issuer)
            claims["aud"] = .string(options.clientID)
        }
        for (key, text) in options.userInfoClaimOverrides {
            claims[key] =
                text.isEmpty ? nil : (try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))) ?? .string(text)
        }
        guard options.signsUserInfo else { return .json(claims) }
        do {
            let jwt = try currentSigningKey.sign(RawClaims(values: claims))
            return .text(200, jwt, contentType: "application/jwt")
        } catch {
            return .text(500, "signing failed: \(error)")
        }
    }
}
