// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore

/// The typed parameters of an authorization request an app may add (OpenID Connect Core §3.1.2.1,
/// RFC 8707), with the free extras for the authorization and token requests, and the checks the ID token
/// must then pass.
///
/// ```swift
/// var parameters = AuthorizationParameters()
/// parameters.prompt = [.login]
/// parameters.maxAge = 600
/// parameters.resources = ["https://api.example.com/"]
/// flow.parameters = parameters
/// ```
///
/// The rules applied to the ID token of a code flow:
/// - with ``maxAge``, it must carry `auth_time`, and `auth_time + max_age` must not be before now less the
///   validator's clock skew (Core §3.1.2.1, §3.1.3.7);
/// - with ``acrValues``, when the server's metadata lists in `acr_values_supported` at least one of the values
///   asked for, the server is taken to honour the request: the token must carry `acr`, and it must be one of the
///   values asked for. Otherwise `acr_values` stays the voluntary request it is in Core §3.1.2.1 and `acr` is
///   not checked.
public struct AuthorizationParameters: Sendable {
    /// The names the typed properties send; a free extra parameter cannot use them (set the property instead).
    public static let typedParameters: Set<String> = [
        "prompt", "login_hint", "max_age", "acr_values", "ui_locales", "resource",
    ]
    /// The names a free extra authorization parameter cannot have: ``AuthorizationRequest/reservedParameters``,
    /// ``typedParameters``, `request` and `request_uri`, which carry a whole request, and `dpop_jkt`, which a DPoP
    /// sign-in sets (``SignIn/usesDPoP``).
    public static let reservedAuthorizationParameters: Set<String> =
        AuthorizationRequest.reservedParameters.union(typedParameters).union(["request", "request_uri", "dpop_jkt"])
    /// The names a free extra token request parameter cannot have: those of the grants and of client
    /// authentication, and `resource` (set ``resources``).
    public static let reservedTokenParameters: Set<String> = [
        "grant_type", "code", "redirect_uri", "code_verifier", "refresh_token", "device_code", "scope", "client_id",
        "client_secret", "client_assertion", "client_assertion_type", "resource",
    ]
    /// The largest `max_age` accepted, in seconds (about 68 years).
    public static let maximumMaxAge = Int(Int32.max)

    /// `prompt`: what the provider should show; ``Prompt/none`` must be alone.
    public var prompt: [Prompt]
    /// `login_hint`: the account the person will likely sign in with (an e-mail address, a user name).
    public var loginHint: String?
    /// `max_age`: the longest time, in seconds, since the person last actually signed in at the provider.
    public var maxAge: Int?
    /// `acr_values`: the authentication context classes asked for, most preferred first.
    public var acrValues: [String]
    /// `ui_locales`: the languages of the provider's pages, as BCP 47 tags, most preferred first.
    public var uiLocales: [String]
    /// `resource` (RFC 8707): absolute URIs without a fragment of the APIs the tokens are for; sent in the
    /// authorization request and in the code exchange, once for each.
    public var resources: [String]
    /// Free extra authorization parameters, in order; none may be one of ``reservedAuthorizationParameters``.
    public var extraAuthorizationParameters: [(name: String, value: String)]
    /// Free extra parameters of the code exchange, in order; none may be one of ``reservedTokenParameters``.
    public var extraTokenParameters: [(name: String, value: String)]

    /// Parameters as given; all empty by default. Nothing is checked until ``validate()``.
    public init(
        prompt: [Prompt] = [], loginHint: String? = nil, maxAge: Int? = nil, acrValues: [String] = [],
        uiLocales: [String] = [], resources: [String] = [],
        extraAuthorizationParameters: [(name: String, value: String)] = [],
        extraTokenParameters: [(name: String, value: String)] = []
    ) {
        self.prompt = prompt
        self.loginHint = loginHint
        self.maxAge = maxAge
        self.acrValues = acrValues
        self.uiLocales = uiLocales
        self.resources = resources
        self.extraAuthorizationParameters = extraAuthorizationParameters
        self.extraTokenParameters = extraTokenParameters
    }

    /// Whether nothing is set.
    public var isEmpty: Bool {
        prompt.isEmpty && loginHint == nil && maxAge == nil && acrValues.isEmpty && uiLocales.isEmpty
            && resources.isEmpty
            && extraAuthorizationParameters.isEmpty && extraTokenParameters.isEmpty
    }

    /// Throws `invalidOptions` saying which parameter is wrong and how: ``prompt`` (``Prompt/check(_:source:)``),
    /// ``maxAge`` outside 0…``maximumMaxAge``, an empty ``loginHint``, a value with a space in ``acrValues`` or
    /// ``uiLocales``, a resource that is not an absolute URI or has a fragment, an extra parameter with a reserved
    /// or empty name.
    public func validate() throws {
        try Prompt.check(prompt)
        if let maxAge, !(0...Self.maximumMaxAge).contains(maxAge) {
            throw Self.invalid("max_age is \(maxAge); it must be a number of seconds from 0 to \(Self.maximumMaxAge)")
        }
        if loginHint?.isEmpty == true { throw Self.invalid("login_hint is empty; leave it out or give the account") }
        for (name, values) in [("acr_values", acrValues), ("ui_locales", uiLocales)] {
            if let bad = values.first(where: { $0.isEmpty || $0.contains(" ") }) {
                throw Self.invalid("\(name) has the value '\(bad)'; each value must be one non-empty word")
            }
        }
        for resource in resources { try Self.checkResource(resource) }
        for (name, _) in extraAuthorizationParameters {
            try Self.checkExtra(name, reserved: Self.reservedAuthorizationParameters, request: "authorization")
        }
        for (name, _) in extraTokenParameters {
            try Self.checkExtra(name, reserved: Self.reservedTokenParameters, request: "token")
        }
    }

    /// Throws `invalidOptions` unless `text` is an absolute URI without a fragment (RFC 8707 §2).
    public static func checkResource(_ text: String) throws {
        guard let components = URLComponents(string: text), let scheme = components.scheme, !scheme.isEmpty,
            !text.contains(" ")
        else {
            throw invalid(
                "the resource '\(text)' is not an absolute URI (RFC 8707 §2); give one like https://api.example.com/")
        }
        guard !text.contains("#") else {
            throw invalid("the resource '\(text)' has a fragment, which RFC 8707 §2 forbids; remove the part from '#'")
        }
    }

    private static func checkExtra(_ name: String, reserved: Set<String>, request: String) throws {
        guard !name.isEmpty else { throw invalid("an extra \(request) parameter has an empty name; give name=value") }
        guard !reserved.contains(name) else {
            let hint =
                typedParameters.contains(name)
                ? "set the typed parameter \(name) instead"
                : "the client sets it itself; remove it"
            throw invalid("the extra \(request) parameter '\(name)' is reserved: \(hint)")
        }
    }

    /// The typed parameters then the extras, as sent in the authorization request (`resource` once per value).
    var authorizationFields: [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        if !prompt.isEmpty { fields.append(("prompt", prompt.map(\.rawValue).joined(separator: " "))) }
        if let loginHint { fields.append(("login_hint", loginHint)) }
        if let maxAge { fields.append(("max_age", String(maxAge))) }
        if !acrValues.isEmpty { fields.append(("acr_values", acrValues.joined(separator: " "))) }
        if !uiLocales.isEmpty { fields.append(("ui_locales", uiLocales.joined(separator: " "))) }
        fields += resources.map { ("resource", $0) }
        return fields + extraAuthorizationParameters
    }

    /// The fields added to the code exchange: each `resource`, then the extras.
    var tokenFields: [(String, String)] {
        resources.map { ("resource", $0) } + extraTokenParameters.map { ($0.name, $0.value) }
    }

    /// Checks the ID token of a code flow against ``maxAge`` and ``acrValues`` (the rules above); throws
    /// `idTokenInvalid` saying what was asked and what came back.
    public func check(
        _ claims: IDTokenClaims, configuration: ServiceConfiguration, now: Date = Date(),
        clockSkew: TimeInterval = 60
    ) throws {
        if let maxAge {
            guard let authTime = claims.authTime else {
                throw ExternalUserAgentError(
                    .idTokenInvalid,
                    "the ID token has no auth_time although max_age=\(maxAge) was sent (OpenID Connect Core §3.1.2.1 "
                        + "requires it); the sign-in was refused: the provider may not support max_age")
            }
            let earliest = now.addingTimeInterval(-Double(maxAge) - clockSkew)
            guard authTime >= earliest else {
                let age = Int(now.timeIntervalSince(authTime))
                throw ExternalUserAgentError(
                    .idTokenInvalid,
                    "the ID token's auth_time says the person signed in \(age) s ago, more than max_age=\(maxAge) "
                        + "(+\(Int(clockSkew)) s skew) allows (OpenID Connect Core §3.1.3.7); the sign-in was refused: "
                        + "sign in again, or ask with prompt=login")
            }
        }
        let supported = configuration.acrValuesSupported ?? []
        if !acrValues.isEmpty, acrValues.contains(where: supported.contains) {
            guard let acr = claims.authenticationContextClass else {
                throw ExternalUserAgentError(
                    .idTokenInvalid,
                    "the ID token has no acr although acr_values=\(acrValues.joined(separator: " ")) was sent and the "
                        + "server lists \(supported.joined(separator: " ")) in acr_values_supported; the sign-in was refused"
                )
            }
            guard acrValues.contains(acr) else {
                throw ExternalUserAgentError(
                    .idTokenInvalid,
                    "the ID token's acr is '\(UntrustedText.printable(acr))', not one of those asked for "
                        + "(acr_values=\(acrValues.joined(separator: " "))); the sign-in was refused")
            }
        }
    }

    private static func invalid(_ message: String) -> ExternalUserAgentError {
        ExternalUserAgentError(.invalidOptions, message)
    }
}
