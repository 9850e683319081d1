// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentABI
import ExternalUserAgentCore

/// The claims of an OpenID Connect ID token (OIDC Core §2), as this client reads them.
///
/// Only a token that passed ``IDTokenValidator`` should be trusted; ``IDTokenClaims/unverified(_:)``
/// is for display and diagnostics.
public struct IDTokenClaims: Sendable, Hashable, Codable {
    /// `iss`: the issuer identifier of the provider that issued the token.
    public var issuer: String
    /// `sub`: the provider's identifier of the person, never empty; unique only together with ``issuer``.
    public var subject: String
    /// `aud`: the client ids the token is for (a single string in the JSON is one element).
    public var audience: [String]
    /// `exp`: when the token expires (whole seconds since 1970 in the JSON).
    public var expiration: Date
    /// `iat`: when the token was issued (whole seconds since 1970 in the JSON).
    public var issuedAt: Date
    /// `nonce`: the authorization request's nonce, sent back; `nil` when the token has none.
    public var nonce: String?
    /// `azp`: the client the token was issued to, when the provider says (required when ``audience`` has several).
    public var authorizedParty: String?
    /// `auth_time`: when the person last actually authenticated, when the provider says.
    public var authTime: Date?
    /// `name`: the person's full name, for display; `nil` when absent or not a string.
    public var name: String?
    /// `email`: the person's e-mail address, for display; `nil` when absent or not a string.
    public var email: String?
    /// `preferred_username`: the name the person goes by, for display; `nil` when absent or not a string.
    public var preferredUsername: String?
    /// `acr`: the authentication context class the provider says the person's sign-in met, when it says.
    public var authenticationContextClass: String?
    /// Every claim of the token as JSON, the standard ones included: groups, roles, custom and nested claims
    /// (`allClaims["groups"]`). The typed properties above are what was checked; when one was changed after
    /// reading, it wins over its entry here when the claims are encoded.
    public var allClaims: [String: JSONValue]

    enum CodingKeys: String, CodingKey, CaseIterable {
        case issuer = "iss"
        case subject = "sub"
        case audience = "aud"
        case expiration = "exp"
        case issuedAt = "iat"
        case nonce
        case authorizedParty = "azp"
        case authTime = "auth_time"
        case name, email
        case preferredUsername = "preferred_username"
        case authenticationContextClass = "acr"
    }

    /// Claims from values at hand (tests, a saved state); nothing is checked here, and a time outside 1970…9999
    /// fails only when encoded.
    public init(
        issuer: String, subject: String, audience: [String], expiration: Date, issuedAt: Date,
        nonce: String? = nil, authorizedParty: String? = nil, authTime: Date? = nil, name: String? = nil,
        email: String? = nil, preferredUsername: String? = nil, authenticationContextClass: String? = nil,
        allClaims: [String: JSONValue] = [:]
    ) {
        self.issuer = issuer
        self.subject = subject
        self.audience = audience
        self.expiration = expiration
        self.issuedAt = issuedAt
        self.nonce = nonce
        self.authorizedParty = authorizedParty
        self.authTime = authTime
        self.name = name
        self.email = email
        self.preferredUsername = preferredUsername
        self.authenticationContextClass = authenticationContextClass
        self.allClaims = allClaims
    }

    /// Reads the claims with the rules of `JSONFields`: `iss`, `sub`, `aud`, `exp` and `iat` are required,
    /// a claim of the wrong type or a time outside 1970…9999 throws ``InvalidFieldError`` naming it.
    /// `name`, `email` and `preferred_username` are for display only: of another type, they are left out.
    public init(from decoder: any Decoder) throws {
        let every = try decoder.container(keyedBy: ClaimName.self)
        var all: [String: JSONValue] = [:]
        for key in every.allKeys { all[key.stringValue] = try every.decode(JSONValue.self, forKey: key) }
        try self.init(fields: JSONFields(decoder), allClaims: all)
    }

    /// Reads the claims with the rules of ``JSONFields``; `allClaims` is every claim as it came.
    init(fields: JSONFields<CodingKeys>, allClaims: [String: JSONValue]) throws {
        issuer = try fields.string(.issuer)
        subject = try fields.string(.subject)
        guard !subject.isEmpty else { throw InvalidFieldError(field: "sub", problem: "is empty") }
        audience = try fields.strings(.audience)
        expiration = try fields.requiredNumericDate(.expiration)
        issuedAt = try fields.requiredNumericDate(.issuedAt)
        nonce = try fields.optionalString(.nonce)
        authorizedParty = try fields.optionalString(.authorizedParty)
        authTime = try fields.numericDate(.authTime)
        name = fields.lenientString(.name)
        email = fields.lenientString(.email)
        preferredUsername = fields.lenientString(.preferredUsername)
        authenticationContextClass = try fields.optionalString(.authenticationContextClass)
        self.allClaims = allClaims
    }

    /// Writes the claims back as JSON: ``allClaims``, with the typed properties over them; a time outside
    /// 1970…9999 (set through the initializer) throws `EncodingError.invalidValue` rather than trapping.
    public func encode(to encoder: any Encoder) throws {
        let typed = Set(CodingKeys.allCases.map(\.stringValue))
        var every = encoder.container(keyedBy: ClaimName.self)
        for (name, value) in allClaims where !typed.contains(name) {
            try every.encode(value, forKey: ClaimName(name))
        }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(issuer, forKey: .issuer)
        try container.encode(subject, forKey: .subject)
        if audience.count == 1 {
            try container.encode(audience[0], forKey: .audience)
        } else {
            try container.encode(audience, forKey: .audience)
        }
        try container.encode(Self.seconds(expiration, .expiration), forKey: .expiration)
        try container.encode(Self.seconds(issuedAt, .issuedAt), forKey: .issuedAt)
        try container.encodeIfPresent(nonce, forKey: .nonce)
        try container.encodeIfPresent(authorizedParty, forKey: .authorizedParty)
        try container.encodeIfPresent(authTime.map { try Self.seconds($0, .authTime) }, forKey: .authTime)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encodeIfPresent(email, forKey: .email)
        try container.encodeIfPresent(preferredUsername, forKey: .preferredUsername)
        try container.encodeIfPresent(authenticationContextClass, forKey: .authenticationContextClass)
    }

    /// The claims for display (`eua login --json`): ``allClaims`` without the values that belong to one
    /// request (`nonce`) or are hashes of a token or code (`at_hash`, `c_hash`, `s_hash`).
    public var displayableClaims: [String: JSONValue] {
        allClaims.filter { !["nonce", "at_hash", "c_hash", "s_hash"].contains($0.key) }
    }

    /// Whole seconds since 1970 for a NumericDate claim, checked first.
    private static func seconds(_ date: Date, _ key: CodingKeys) throws -> Int {
        let value = date.timeIntervalSince1970.rounded(.down)
        guard value.isFinite, value >= 0, value <= JSONFields<CodingKeys>.latestNumericDate else {
            throw EncodingError.invalidValue(
                date,
                EncodingError.Context(
                    codingPath: [key],
                    debugDescription: "'\(key.stringValue)' is not a time between 1970 and 9999"))
        }
        return Int(value)
    }

    /// The person's most readable name: `preferred_username`, `name`, `email`, then `sub`.
    public var displayName: String { preferredUsername ?? name ?? email ?? subject }
}

/// Any claim's name, to read and write every claim of a token.
struct ClaimName: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// The JOSE header fields this client looks at (RFC 7515 §4.1).
struct JOSEHeader: Decodable {
    var alg: String
    var kid: String?
    /// Critical extensions, which this client understands none of.
    var crit: [String]?

    enum CodingKeys: String, CodingKey { case alg, kid, crit }

    init(from decoder: any Decoder) throws {
        try self.init(fields: JSONFields(decoder))
    }

    init(fields: JSONFields<CodingKeys>) throws {
        alg = try fields.string(.alg)
        kid = try fields.optionalString(.kid)
        crit = fields.isPresent(.crit) ? fields.lenientStrings(.crit) ?? [] : nil
    }
}

/// An ID token split into its three parts, nothing checked yet.
struct CompactJWT {
    var header: JOSEHeader
    var payload: Data

    /// `nil` when `token` is not a JWS compact serialization; `parse(_:)` says why.
    init?(_ token: String) {
        guard let jwt = try? Self.parse(token) else { return nil }
        self = jwt
    }

    private init(header: JOSEHeader, payload: Data) {
        self.header = header
        self.payload = payload
    }

    /// Splits `token` and reads its header; throws `idTokenInvalid` saying what is wrong (`what`: the token's name).
    static func parse(_ token: String, what: String = "the ID token") throws -> CompactJWT {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw invalid(
                "\(what) is not a JWS compact serialization (header.payload.signature): it has \(parts.count) parts")
        }
        guard let headerData = Base64URL.decode(parts[0]), let payload = Base64URL.decode(parts[1]) else {
            throw invalid("\(what) has a header or payload that is not base64url")
        }
        let header: JOSEHeader
        do {
            header = try JOSEHeader(fields: JSONFields(json: headerData))
        } catch let error as InvalidFieldError {
            throw invalid("\(what)'s header field \(error)", underlying: error)
        } catch {
            throw invalid("\(what)'s header is not a JSON object")
        }
        if let crit = header.crit {
            let names = crit.map(UntrustedText.printable).joined(separator: ", ")
            throw invalid(
                "\(what) has critical header extensions (crit: \(names)) this client does not "
                    + "understand (RFC 7515 §4.1.11)")
        }
        return CompactJWT(header: header, payload: payload)
    }

    /// Reads the claims of the payload; a claim of the wrong type, out of range or missing is
    /// `idTokenInvalid` naming the claim (the one place this rule is applied to ID tokens).
    func claims() throws -> IDTokenClaims {
        do {
            let fields = try JSONFields<IDTokenClaims.CodingKeys>(json: payload)
            return try IDTokenClaims(fields: fields, allClaims: fields.objectMembers ?? [:])
        } catch let error as InvalidFieldError {
            throw Self.invalid(
                "the ID token's claim \(error) (OpenID Connect Core §2); it was refused", underlying: error)
        } catch {
            throw Self.invalid("the ID token's payload is not a JSON object")
        }
    }

    private static func invalid(_ message: String, underlying: (any Error & Sendable)? = nil) -> ExternalUserAgentError
    {
        ExternalUserAgentError(.idTokenInvalid, message, underlying: underlying)
    }
}

extension IDTokenClaims {
    /// Reads the claims of `token` WITHOUT checking anything; `nil` when it is not a JWT.
    public static func unverified(_ token: String) -> IDTokenClaims? {
        try? CompactJWT(token)?.claims()
    }
}
