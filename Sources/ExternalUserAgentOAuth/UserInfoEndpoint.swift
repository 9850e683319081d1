// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore
import Logging

/// Asks the provider's UserInfo endpoint about the signed-in person (OpenID Connect Core §5.3).
///
/// The access token goes as a bearer token in the `Authorization` header (RFC 6750 §2.1), or in the form
/// body when the provider asks for that (§2.2). The answer is JSON, or a JWT (`application/jwt`) checked
/// like an ID token: its algorithm, its signature with the provider's key set, and its `iss` and `aud` when present.
/// Its `sub` must be the ID token's, or its claims are not used (Core §5.3.2).
public struct UserInfoEndpoint: Sendable {
    /// Where the access token goes.
    public enum TokenPlacement: Sendable, Hashable {
        /// `Authorization: Bearer …` on a GET (the default).
        case authorizationHeader
        /// `access_token=…` in a form POST, for a provider that asks for it.
        case formBody
    }

    /// The provider: its `userinfo_endpoint`, and the issuer and key set a signed response is checked against.
    public let configuration: ServiceConfiguration
    /// The client: its id must be the `aud` of a signed response; its secret is the key of an HMAC-signed one.
    public let client: ClientCredentials
    /// The key a DPoP-bound access token (RFC 9449) is proven with: the token then goes as `Authorization: DPoP …`
    /// with a proof carrying its hash (`ath`), in the header placement only; a `DPoP-Nonce` demand is met once.
    public var dpopKey: DPoPKey?
    private let validator: IDTokenValidator
    private let http: OAuthHTTP
    private let logger: Logger

    /// `signingAlgorithm`: the client's registered `userinfo_signed_response_alg`, when not an
    /// asymmetric default (``IDTokenAlgorithm``; HMAC uses the client secret).
    public init(
        configuration: ServiceConfiguration, client: ClientCredentials, signingAlgorithm: IDTokenAlgorithm? = nil,
        http: OAuthHTTP = OAuthHTTP(), logger: Logger = Logger(label: "eua.oauth")
    ) {
        self.configuration = configuration
        self.client = client
        self.validator = IDTokenValidator(
            configuration: configuration, clientID: client.clientID, algorithm: signingAlgorithm,
            clientSecret: client.clientSecret, clockSkew: 60, http: http, logger: logger)
        self.http = http
        self.logger = logger
    }

    /// Fetches the claims with `accessToken` and checks that they are about `expectedSubject`, the ID token's `sub`
    /// (`nil` only when the sign-in brought no ID token to compare with: the device grant).
    ///
    /// Throws `userInfoFailed` (no endpoint, unreachable, refused, not a UserInfo response) and
    /// `userInfoInvalid` (another subject; a signed response that fails its checks).
    public func fetch(
        accessToken: String, expectedSubject: String?,
        placement: TokenPlacement = .authorizationHeader
    ) async throws -> UserInfo {
        guard let url = configuration.userinfoEndpoint else {
            throw ExternalUserAgentError(
                .userInfoFailed,
                "the provider \(configuration.issuer) has no UserInfo endpoint (no userinfo_endpoint in its metadata)")
        }
        let endpoint = url.absoluteString
        logger.debug("UserInfo request", metadata: ["endpoint": "\(endpoint)", "placement": "\(placement)"])
        let response: OAuthHTTP.Response
        do {
            switch placement {
            case .authorizationHeader where dpopKey != nil:
                response = try await dpopGet(url, accessToken: accessToken)
            case .authorizationHeader:
                response = try await http.get(
                    url, authorization: "Bearer " + accessToken,
                    accept: "application/json, application/jwt")
            case .formBody:
                response = try await http.postForm(url, fields: [("access_token", accessToken)])
            }
        } catch {
            throw ExternalUserAgentError(
                .userInfoFailed, "the UserInfo endpoint \(endpoint) could not be reached: \(error)",
                underlying: error)
        }
        let userInfo = try await read(response, endpoint: endpoint)
        if let expectedSubject, userInfo.subject != expectedSubject {
            throw ExternalUserAgentError(
                .userInfoInvalid,
                "the UserInfo response of \(endpoint) is about subject '\(UntrustedText.printable(userInfo.subject))', "
                    + "not '\(UntrustedText.printable(expectedSubject))' whom the ID token names (OpenID Connect Core "
                    + "§5.3.2); its claims were not used — the provider may be mixing up accounts")
        }
        logger.debug(
            "UserInfo accepted", metadata: ["claims": "\(userInfo.claims.count)", "signed": "\(userInfo.isSigned)"])
        return userInfo
    }

    /// GETs `url` with the DPoP-bound `accessToken` and a proof, once more with the server's nonce when it asks.
    private func dpopGet(_ url: URL, accessToken: String) async throws -> OAuthHTTP.Response {
        guard let dpopKey else { throw ExternalUserAgentError(.invalidOptions, "no DPoP key") }
        func send(nonce: String?) async throws -> OAuthHTTP.Response {
            let proof = try DPoPProof.make(
                key: dpopKey, method: "GET", url: url, nonce: nonce, accessToken: accessToken)
            return try await http.get(
                url, authorization: "DPoP " + accessToken, accept: "application/json, application/jwt",
                headers: [("DPoP", proof)])
        }
        let response = try await send(nonce: nil)
        // RFC 9449 §9: a resource server asks for its nonce with 401 and WWW-Authenticate error="use_dpop_nonce".
        guard response.status == 401, response.header(named: "WWW-Authenticate")?.contains("use_dpop_nonce") == true,
            let nonce = response.header(named: "DPoP-Nonce"), !nonce.isEmpty, nonce.count <= 512,
            nonce.allSatisfy({ $0.isASCII && ($0.asciiValue ?? 0) > 0x20 && ($0.asciiValue ?? 0) < 0x7F })
        else {
            return response
        }
        return try await send(nonce: nonce)
    }

    /// Reads the answer: JSON, or a signed JWT checked first.
    private func read(_ response: OAuthHTTP.Response, endpoint: String) async throws -> UserInfo {
        switch response.status {
        case 200:
            break
        case 401, 403:
            throw ExternalUserAgentError(
                .userInfoFailed,
                "the UserInfo endpoint \(endpoint) refused the access token (HTTP \(response.status)); it may have "
                    + "expired or lack the 'openid' scope — refresh the tokens, or sign in again with the scope",
                remedies: [.refreshTokens, .signIn])
        default:
            throw ExternalUserAgentError(
                .userInfoFailed, "the UserInfo endpoint \(endpoint) answered HTTP \(response.status)")
        }
        let type =
            (response.contentType?.split(separator: ";").first).map {
                String($0.filter { !$0.isWhitespace }).lowercased()
            } ?? ""
        if type == "application/jwt" {
            let what = "the signed UserInfo response of \(endpoint)"
            let jwt: CompactJWT
            do {
                let token = String(String(decoding: response.body, as: UTF8.self).filter { !$0.isWhitespace })
                jwt = try await validator.verified(token, delivery: .other, what: what)
            } catch let error as ExternalUserAgentError {
                throw ExternalUserAgentError(
                    .userInfoInvalid, error.message + "; its claims were not used",
                    underlying: error.underlying)
            }
            try checkIssuerAndAudience(jwt.payload, what: what)
            return try UserInfo(json: jwt.payload, isSigned: true, endpoint: endpoint)
        }
        guard type.hasSuffix("json") else {
            throw ExternalUserAgentError(
                .userInfoFailed,
                "the UserInfo endpoint \(endpoint) answered with \(type.isEmpty ? "no content type" : "'\(UntrustedText.printable(type))'"), "
                    + "not JSON (application/json) or a signed JWT (application/jwt)")
        }
        return try UserInfo(json: response.body, isSigned: false, endpoint: endpoint)
    }

    /// A signed response's `iss` and `aud`, when present, must name the provider and this client (Core §5.3.2,
    /// errata set 2: they SHOULD be there; the OpenID Foundation's `rp-userinfo-sig` sends neither).
    private func checkIssuerAndAudience(_ payload: Data, what: String) throws {
        let members: [String: JSONValue]
        if case .object(let object)? = JSONValue.read(payload) { members = object } else { members = [:] }
        if let issuer = members["iss"], issuer.stringValue != configuration.issuer {
            let got = issuer.stringValue.map { "'\(UntrustedText.printable($0))'" } ?? "an 'iss' that is not a string"
            throw ExternalUserAgentError(
                .userInfoInvalid,
                "\(what) has \(got), not the issuer '\(configuration.issuer)' (OpenID Connect Core §5.3.2); its claims were not used"
            )
        }
        guard let aud = members["aud"] else { return }
        let audience: [String] =
            switch aud {
            case .string(let value): [value]
            case .array(let values): values.compactMap(\.stringValue)
            default: []
            }
        guard audience.contains(client.clientID) else {
            throw ExternalUserAgentError(
                .userInfoInvalid,
                "\(what) is not for this client '\(client.clientID)' (its 'aud' does not name it; OpenID Connect Core "
                    + "§5.3.2); its claims were not used")
        }
    }
}
