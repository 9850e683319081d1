// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore

/// The metadata of a native client to register dynamically (RFC 7591 §2, OpenID Connect Registration §2).
///
/// `application_type` is `native`; each redirect URI is loopback `http` (`127.0.0.1`, `[::1]`, `localhost`;
/// the port may be left out, RFC 8252 §7.3) or a private-use scheme (`com.example.app:/cb`, RFC 8252 §7.1);
/// the client authenticates with `none` unless told otherwise (a public client, RFC 8252 §8.4).
public struct ClientRegistrationRequest: Sendable {
    /// `redirect_uris`: where the provider may send the person back; the initializer requires at least one, each
    /// loopback `http` or a private-use scheme.
    public var redirectURIs: [URL]
    /// `token_endpoint_auth_method`: how the client will authenticate at the token endpoint; `none` by default.
    public var tokenEndpointAuthMethod: ClientCredentials.AuthenticationMethod
    /// A name to show people on the consent page.
    public var clientName: String?
    /// The ID token algorithm to ask for; `nil`: the provider's default (RS256).
    public var idTokenAlgorithm: IDTokenAlgorithm?
    /// The scopes the client will ask for, when the provider wants them at registration.
    public var scope: String?
    /// Given by the provider to allow registration (RFC 7591 §3); a secret, never logged.
    public var initialAccessToken: String?
    /// The client's public key, registered as its `jwks` for `private_key_jwt` and request objects.
    public var signingKey: ClientSigningKey?
    /// E-mail addresses of the people responsible for the client (`contacts`); some providers require them.
    public var contacts: [String] = []
    /// The algorithm to ask for signed UserInfo responses (`userinfo_signed_response_alg`); `nil`: plain JSON.
    public var userInfoAlgorithm: IDTokenAlgorithm?

    /// Throws `invalidOptions` for a redirect URI a native client may not use, or none at all.
    public init(
        redirectURIs: [URL], tokenEndpointAuthMethod: ClientCredentials.AuthenticationMethod = .none,
        clientName: String? = nil, idTokenAlgorithm: IDTokenAlgorithm? = nil, scope: String? = nil,
        initialAccessToken: String? = nil
    ) throws {
        guard !redirectURIs.isEmpty else {
            throw ExternalUserAgentError(.invalidOptions, "a client registration needs at least one redirect URI")
        }
        for uri in redirectURIs { try Self.checkNative(uri) }
        self.redirectURIs = redirectURIs
        self.tokenEndpointAuthMethod = tokenEndpointAuthMethod
        self.clientName = clientName
        self.idTokenAlgorithm = idTokenAlgorithm
        self.scope = scope
        self.initialAccessToken = initialAccessToken
    }

    /// Loopback `http` with no fragment, or a private-use scheme with a dot in it (RFC 8252 §7.1, §7.3, §8.3).
    static func checkNative(_ uri: URL) throws {
        let text = uri.absoluteString
        let scheme = uri.scheme?.lowercased() ?? ""
        guard !text.contains("#") else {
            throw ExternalUserAgentError(
                .invalidOptions, "redirect URI '\(text)' has a fragment, which a redirect URI may not have")
        }
        switch scheme {
        case "http":
            guard ["127.0.0.1", "[::1]", "::1", "localhost"].contains(uri.host?.lowercased() ?? "") else {
                throw ExternalUserAgentError(
                    .invalidOptions,
                    "redirect URI '\(text)' is http on another host than the loopback; a native client uses "
                        + "http://127.0.0.1[:port]/path or a private-use scheme (RFC 8252 §7)")
            }
        case "https":
            throw ExternalUserAgentError(
                .invalidOptions,
                "redirect URI '\(text)' is https (a claimed URL, which Linux desktops do not route to apps); use "
                    + "http://127.0.0.1/path or a private-use scheme like com.example.app:/cb (RFC 8252 §7)")
        case "":
            throw ExternalUserAgentError(.invalidOptions, "redirect URI '\(text)' has no scheme")
        default:
            guard scheme.contains(".") else {
                throw ExternalUserAgentError(
                    .invalidOptions,
                    "redirect URI '\(text)' uses scheme '\(scheme)'; a private-use scheme is a reversed domain name "
                        + "the app owns, like com.example.app (RFC 8252 §7.1)")
            }
        }
    }

    /// The JSON body (RFC 7591 §3.1).
    var json: JSONValue {
        var members: [String: JSONValue] = [
            "application_type": .string("native"),
            "redirect_uris": .array(redirectURIs.map { .string($0.absoluteString) }),
            "token_endpoint_auth_method": .string(tokenEndpointAuthMethod.rawValue),
            "grant_types": .array([.string("authorization_code"), .string("refresh_token")]),
            "response_types": .array([.string("code")]),
        ]
        if let clientName { members["client_name"] = .string(clientName) }
        if let idTokenAlgorithm { members["id_token_signed_response_alg"] = .string(idTokenAlgorithm.name) }
        if let scope { members["scope"] = .string(scope) }
        if let signingKey {
            members["jwks"] = .object(["keys": .array([signingKey.publicJWK])])
            members["request_object_signing_alg"] = .string(signingKey.algorithm)
        }
        if !contacts.isEmpty { members["contacts"] = .array(contacts.map(JSONValue.string)) }
        if let userInfoAlgorithm { members["userinfo_signed_response_alg"] = .string(userInfoAlgorithm.name) }
        return .object(members)
    }
}
