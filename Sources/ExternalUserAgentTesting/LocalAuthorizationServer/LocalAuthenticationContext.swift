// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentABI

/// How the local server meets `max_age` and `acr_values` (OpenID Connect Core §3.1.2.1): with `max_age` the ID
/// token carries `auth_time`, the moment of the approval; with `acr_values` naming a value the server lists in
/// ``LocalAuthorizationServerOptions/acrValuesSupported``, it carries that value as `acr`. A claim override
/// (``LocalAuthorizationServerOptions/idTokenClaimOverrides``) wins, so a test can send an old or no `auth_time`,
/// or an `acr` not asked for.
struct LocalAuthenticationContext: Sendable {
    /// When the person was approved, in seconds since 1970, when `max_age` was sent.
    var authTime: Int?
    /// The `acr` to send.
    var acr: String?

    init() {}

    /// The context of an authorization request with `query`, approved now.
    init(_ query: [String: String], supported: [String]) {
        if query["max_age"] != nil { authTime = Int(Date().timeIntervalSince1970) }
        let asked = (query["acr_values"] ?? "").split(separator: " ").map(String.init)
        acr = asked.first { supported.contains($0) }
    }

    /// `options` with `auth_time` and `acr` added to the ID token claims, unless already overridden.
    func adding(to options: LocalAuthorizationServerOptions) -> LocalAuthorizationServerOptions {
        var options = options
        if let authTime, options.idTokenClaimOverrides["auth_time"] == nil {
            options.idTokenClaimOverrides["auth_time"] = String(authTime)
        }
        if let acr, options.idTokenClaimOverrides["acr"] == nil {
            options.idTokenClaimOverrides["acr"] = JSONValue.string(acr).jsonText
        }
        return options
    }
}
