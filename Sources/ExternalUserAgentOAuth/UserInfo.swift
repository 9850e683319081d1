// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore

/// The claims a provider's UserInfo endpoint returned about the signed-in person (OpenID Connect Core
/// §5.3.2), after its checks: `sub` is the ID token's, and a signed response's signature, `iss` and `aud`.
///
/// ``claims`` holds every member as the provider sent it, typed as JSON, `_claim_names` and
/// `_claim_sources` included; ``claimSources`` reads those two (Core §5.6.2): claims held elsewhere, as
/// a signed JWT (aggregated) or at another endpoint (distributed). They are passed on, not fetched.
public struct UserInfo: Sendable, Hashable {
    /// Where claims held elsewhere are.
    public enum ClaimSource: Sendable, Hashable {
        /// In a JWT signed by the claims provider (not checked by this client).
        case aggregated(jwt: String)
        /// At an endpoint, fetched with its own access token (a secret, when present: never print it).
        case distributed(endpoint: URL, accessToken: String?)
    }

    /// The subject, equal to the ID token's `sub`.
    public var subject: String
    /// Every member of the response, typed.
    public var claims: [String: JSONValue]
    /// Whether the response was a signed JWT (`application/jwt`) whose signature was checked.
    public var isSigned: Bool
    /// For each claim held elsewhere (`_claim_names`), the name of its source.
    public var claimNames: [String: String]
    /// The sources of `_claim_sources`, by name.
    public var claimSources: [String: ClaimSource]

    /// Where the claim `name` is held, when it is held elsewhere.
    public func source(ofClaim name: String) -> ClaimSource? {
        claimNames[name].flatMap { claimSources[$0] }
    }

    /// Reads a UserInfo response's JSON object; throws `userInfoFailed` naming the member that is wrong.
    init(json: Data, isSigned: Bool, endpoint: String) throws {
        func failure(_ problem: String) -> ExternalUserAgentError {
            ExternalUserAgentError(
                .userInfoFailed,
                "the UserInfo response of \(endpoint) \(problem); its claims were "
                    + "not used — the provider must fix its answer")
        }
        guard case .object(let members)? = JSONValue.read(json) else {
            throw failure("is not a JSON object")
        }
        guard case .string(let subject)? = members["sub"], !subject.isEmpty else {
            throw failure(members["sub"] == nil ? "has no 'sub'" : "has a 'sub' that is not a non-empty string")
        }
        var names: [String: String] = [:]
        if let value = members["_claim_names"] {
            guard case .object(let map) = value else { throw failure("has '_claim_names' that is not an object") }
            for (claim, source) in map {
                guard case .string(let name) = source else {
                    throw failure("has '_claim_names.\(UntrustedText.printable(claim))' that is not a string")
                }
                names[claim] = name
            }
        }
        var sources: [String: ClaimSource] = [:]
        if let value = members["_claim_sources"] {
            guard case .object(let map) = value else { throw failure("has '_claim_sources' that is not an object") }
            for (name, source) in map {
                let key = "_claim_sources.\(UntrustedText.printable(name))"
                guard case .object(let fields) = source else { throw failure("has '\(key)' that is not an object") }
                if case .string(let jwt)? = fields["JWT"] {
                    sources[name] = .aggregated(jwt: jwt)
                } else if case .string(let text)? = fields["endpoint"], let url = URL(string: text),
                    ["https", "http"].contains(url.scheme?.lowercased() ?? "")
                {
                    var token: String?
                    if let member = fields["access_token"] {
                        guard case .string(let value) = member else {
                            throw failure("has '\(key).access_token' that is not a string")
                        }
                        token = value
                    }
                    sources[name] = .distributed(endpoint: url, accessToken: token)
                } else {
                    throw failure("has '\(key)' with neither a 'JWT' string nor an http(s) 'endpoint'")
                }
            }
        }
        if let dangling = names.first(where: { sources[$0.value] == nil }) {
            throw failure(
                "names source '\(UntrustedText.printable(dangling.value))' for claim "
                    + "'\(UntrustedText.printable(dangling.key))' in '_claim_names', which '_claim_sources' does not have"
            )
        }
        self.subject = subject
        self.claims = members
        self.isSigned = isSigned
        self.claimNames = names
        self.claimSources = sources
    }
}
