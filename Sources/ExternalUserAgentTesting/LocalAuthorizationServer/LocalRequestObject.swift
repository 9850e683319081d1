// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentABI

/// A request object a local server received (RFC 9101), checked.
public struct RequestObjectRecord: Sendable {
    /// The JWS `alg` of its header, when it has one as a string.
    public var alg: String?
    /// The JWS `typ` of its header (`oauth-authz-req+jwt`, RFC 9101), when it has one as a string.
    public var type: String?
    /// Its claims, when the signature verified.
    public var claims: [String: JSONValue]?
    /// Why it was refused; `nil` when it was accepted.
    public var refusal: String?
}

extension LocalAuthorizationServer {
    static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

    /// The authorization request's parameters: those of its signed `request` object when it has one (checked
    /// with the client's keys: signature, `iss` the client, `aud` this issuer, `client_id` the query's), else the query.
    func expandRequestObject(_ query: [String: String]) -> Result<[String: String], ClientJWT.Refusal> {
        guard let jwt = query["request"] else { return .success(query) }
        let options = self.options(for: query["client_id"])
        let result = ClientJWT.verify(jwt, keys: options.clientPublicKeys, secret: options.clientSecret)
        let header =
            ClientJWT.decode(jwt.split(separator: ".").first ?? "")
            .flatMap { try? JSONDecoder().decode([String: JSONValue].self, from: $0) } ?? [:]
        var record = RequestObjectRecord(alg: header["alg"]?.stringValue, type: header["typ"]?.stringValue)
        defer { recordRequestObject(record) }
        let claims: [String: JSONValue]
        switch result {
        case .failure(let refusal):
            record.refusal = refusal.reason
            return .failure(refusal)
        case .success(let verified):
            claims = verified.claims
        }
        record.claims = claims
        let problem: String? =
            if claims["iss"]?.stringValue != query["client_id"] {
                "its iss is not the client"
            } else if claims["aud"]?.stringValue != issuer {
                "its aud is not this issuer"
            } else if let inner = claims["client_id"]?.stringValue, inner != query["client_id"] {
                "its client_id differs from the query's"
            } else { nil }
        if let problem {
            record.refusal = problem
            return .failure(ClientJWT.Refusal(problem))
        }
        var expanded = query
        expanded["request"] = nil
        for (name, value) in claims where !["iss", "aud", "iat", "nbf", "exp", "jti"].contains(name) {
            expanded[name] = value.stringValue ?? (try? String(decoding: JSONEncoder().encode(value), as: UTF8.self))
        }
        return .success(expanded)
    }

    /// The client authentication of a token request with a `client_assertion` (RFC 7523): `private_key_jwt` or
    /// `client_secret_jwt` and the assertion's `aud`, or the reason it is refused.
    func checkAssertion(_ form: [String: String], options: LocalAuthorizationServerOptions, audiences: [String]? = nil)
        -> (method: String, audience: String?, refusal: String?)
    {
        guard let jwt = form["client_assertion"] else { return ("none", nil, "no client_assertion") }
        guard form["client_assertion_type"] == Self.assertionType else {
            return ("private_key_jwt", nil, "client_assertion_type is not \(Self.assertionType)")
        }
        switch ClientJWT.verify(jwt, keys: options.clientPublicKeys, secret: options.clientSecret) {
        case .failure(let refusal):
            return ("private_key_jwt", nil, refusal.reason)
        case .success(let verified):
            let method = verified.header["alg"]?.stringValue == "HS256" ? "client_secret_jwt" : "private_key_jwt"
            let audience = verified.claims["aud"]?.stringValue
            let now = Date().timeIntervalSince1970
            if verified.claims["iss"]?.stringValue != options.clientID
                || verified.claims["sub"]?.stringValue != options.clientID
            {
                return (method, audience, "the assertion's iss and sub must be the client id")
            }
            if !(audiences ?? [issuer + "/token"]).contains(audience ?? "") {
                return (
                    method, audience,
                    "the assertion's aud is not \(audiences == nil ? "the token endpoint" : "the issuer")"
                )
            }
            guard case .number(let exp)? = verified.claims["exp"], exp > now else {
                return (method, audience, "the assertion has expired or has no exp")
            }
            return (method, audience, nil)
        }
    }
}
