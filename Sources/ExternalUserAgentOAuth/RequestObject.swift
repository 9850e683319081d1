// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore
import ExternalUserAgentRules

/// An authorization request passed as a signed request object (RFC 9101 §4, OpenID Connect Core §6.1).
///
/// Every parameter of the request goes in a JWT signed with the client's key (`typ` `oauth-authz-req+jwt`,
/// `iss` the client, `aud` the issuer); the URL carries `client_id` and `request`, plus `response_type` and
/// `scope`, which OpenID Connect wants in the query too.
enum RequestObject {
    /// How long a request object is good for.
    static let lifetime: TimeInterval = 300

    /// The URL to present for `request`, signed with `client.signingKey`; throws `invalidOptions` without one.
    static func url(for request: AuthorizationRequest, client: ClientCredentials, now: Date = Date()) throws -> URL {
        guard let key = client.signingKey else {
            throw ExternalUserAgentError(
                .invalidOptions,
                "a request object (RFC 9101) is signed with the client's private key, and none was given; give it (a JWK "
                    + "or PEM file)", remedies: [.giveClientKey])
        }
        var claims: [String: JSONValue] = [
            "response_type": .string("code"), "client_id": .string(request.clientID),
            "redirect_uri": .string(request.redirectURI.absoluteString), "state": .string(request.state),
            "code_challenge": .string(request.pkce.codeChallenge),
            "code_challenge_method": .string(request.pkce.codeChallengeMethod),
        ]
        if !request.scopes.isEmpty { claims["scope"] = .string(request.scopes.joined(separator: " ")) }
        if let nonce = request.nonce { claims["nonce"] = .string(nonce) }
        for parameter in request.additionalParameters {
            // `claims` is a JSON object inside a request object (OpenID Connect Core §6.1), not a string.
            let object = parameter.name == "claims" ? JSONValue.read(Data(parameter.value.utf8)) : nil
            let value = object ?? .string(parameter.value)
            // A repeated parameter (RFC 8707 `resource`) becomes an array of its values.
            switch claims[parameter.name] {
            case .array(let values)?: claims[parameter.name] = .array(values + [value])
            case let first?: claims[parameter.name] = .array([first, value])
            case nil: claims[parameter.name] = value
            }
        }
        let issued = now.timeIntervalSince1970.rounded(.down)
        claims["iss"] = .string(client.clientID)
        claims["aud"] = .string(request.configuration.issuer)
        claims["iat"] = .number(issued)
        claims["nbf"] = .number(issued)
        claims["exp"] = .number(issued + lifetime)
        claims["jti"] = .string(SecureRandom.token(bits: 128))
        let jwt = try key.sign(claims, type: "oauth-authz-req+jwt")
        var components = URLComponents(
            url: request.configuration.authorizationEndpoint, resolvingAgainstBaseURL: false)!
        var items: [(String, String)] = [("client_id", client.clientID), ("response_type", "code")]
        if !request.scopes.isEmpty { items.append(("scope", request.scopes.joined(separator: " "))) }
        items.append(("request", jwt))
        let own = (components.percentEncodedQuery.map { $0 + "&" } ?? "")
        components.percentEncodedQuery =
            own
            + items.map { FormCoding.escape($0.0) + "=" + FormCoding.escape($0.1) }
            .joined(separator: "&")
        return components.url!
    }
}
