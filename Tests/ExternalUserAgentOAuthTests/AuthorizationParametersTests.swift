// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore
@testable import ExternalUserAgentOAuth
import Foundation
import Testing

@Suite("Typed authorization parameters and the ID token checks they bring")
struct AuthorizationParametersTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func claims(authTime: Date? = nil, acr: String? = nil) -> IDTokenClaims {
        IDTokenClaims(
            issuer: "https://id.example.com", subject: "alice", audience: ["app"],
            expiration: now.addingTimeInterval(600), issuedAt: now, authTime: authTime,
            authenticationContextClass: acr)
    }

    static func message(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as ExternalUserAgentError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test("prompt: several values, comma or space; none alone; unknown values refused by name")
    func prompt() throws {
        #expect(try Prompt.parse("login,consent") == [.login, .consent])
        #expect(try Prompt.parse("select_account") == [.selectAccount])
        #expect(
            Self.message { _ = try Prompt.parse("none login") }?.contains("'none' cannot be sent with another") == true)
        #expect(Self.message { _ = try Prompt.parse("login login") }?.contains("given twice") == true)
        #expect(
            Self.message { _ = try Prompt.parse("always", source: "--prompt") }
                == "--prompt: 'always' is not a prompt value; use none, login, consent or select_account")
    }

    @Test("the fields go into the authorization URL in order, resource once per value, after the client's own")
    func url() throws {
        let parameters = AuthorizationParameters(
            prompt: [.login], loginHint: "alice@example.com", maxAge: 0,
            acrValues: ["urn:a", "urn:b"], uiLocales: ["de"],
            resources: ["https://a.example/", "urn:api:b"],
            extraAuthorizationParameters: [("domain_hint", "x y")])
        try parameters.validate()
        let request = try AuthorizationRequest(
            configuration: exampleConfiguration, clientID: "app", scopes: ["openid"],
            redirectURI: URL(string: "http://127.0.0.1:5000/cb")!,
            additionalParameters: parameters.authorizationFields)
        let items = query(request.url)
        #expect(items["prompt"] == ["login"])
        #expect(items["login_hint"] == ["alice@example.com"])
        #expect(items["max_age"] == ["0"])
        #expect(items["acr_values"] == ["urn:a urn:b"])
        #expect(items["ui_locales"] == ["de"])
        #expect(items["resource"] == ["https://a.example/", "urn:api:b"])
        #expect(items["domain_hint"] == ["x y"])
        #expect(parameters.tokenFields.map(\.0) == ["resource", "resource"])
    }

    @Test(
        "hostile values are refused with the parameter named",
        arguments: [
            (AuthorizationParameters(maxAge: -1), "max_age is -1"),
            (AuthorizationParameters(maxAge: Int(Int32.max) + 1), "max_age is 2147483648"),
            (AuthorizationParameters(loginHint: ""), "login_hint is empty"),
            (AuthorizationParameters(acrValues: ["urn:a urn:b"]), "acr_values has the value 'urn:a urn:b'"),
            (AuthorizationParameters(uiLocales: [""]), "ui_locales has the value ''"),
            (AuthorizationParameters(resources: ["/relative"]), "the resource '/relative' is not an absolute URI"),
            (AuthorizationParameters(resources: ["https://api.example/#f"]), "has a fragment"),
            (AuthorizationParameters(resources: ["https://api example/"]), "is not an absolute URI"),
            (
                AuthorizationParameters(extraAuthorizationParameters: [("nonce", "n")]),
                "the extra authorization parameter 'nonce' is reserved: the client sets it itself; remove it"
            ),
            (
                AuthorizationParameters(extraAuthorizationParameters: [("request_uri", "urn:x")]),
                "'request_uri' is reserved"
            ),
            (AuthorizationParameters(extraAuthorizationParameters: [("dpop_jkt", "x")]), "'dpop_jkt' is reserved"),
            (
                AuthorizationParameters(extraAuthorizationParameters: [("max_age", "1")]),
                "set the typed parameter max_age instead"
            ),
            (AuthorizationParameters(extraAuthorizationParameters: [("", "v")]), "has an empty name"),
            (AuthorizationParameters(extraTokenParameters: [("grant_type", "password")]), "'grant_type' is reserved"),
            (
                AuthorizationParameters(extraTokenParameters: [("client_assertion", "x")]),
                "'client_assertion' is reserved"
            ),
        ])
    func hostile(_ parameters: AuthorizationParameters, _ says: String) {
        let message = Self.message { try parameters.validate() }
        #expect(message?.contains(says) == true, "\(message ?? "accepted")")
    }

    @Test("max_age: auth_time required, and not older than max_age plus the skew")
    func maxAge() throws {
        let parameters = AuthorizationParameters(maxAge: 300)
        try parameters.check(
            Self.claims(authTime: Self.now.addingTimeInterval(-359)), configuration: exampleConfiguration,
            now: Self.now)
        #expect(
            Self.message {
                try parameters.check(Self.claims(), configuration: exampleConfiguration, now: Self.now)
            }?.contains("no auth_time although max_age=300 was sent") == true)
        #expect(
            Self.message {
                try parameters.check(
                    Self.claims(authTime: Self.now.addingTimeInterval(-361)),
                    configuration: exampleConfiguration, now: Self.now)
            }?.contains("signed in 361 s ago, more than max_age=300") == true)
        try AuthorizationParameters().check(Self.claims(), configuration: exampleConfiguration, now: Self.now)
    }

    @Test("acr: checked only when the server lists a value asked for in acr_values_supported")
    func acr() throws {
        var honouring = exampleConfiguration
        honouring.acrValuesSupported = ["urn:b", "urn:c"]
        let parameters = AuthorizationParameters(acrValues: ["urn:a", "urn:b"])
        try parameters.check(Self.claims(acr: "urn:a"), configuration: honouring, now: Self.now)
        #expect(
            Self.message { try parameters.check(Self.claims(acr: "urn:c"), configuration: honouring, now: Self.now) }
                == "the ID token's acr is 'urn:c', not one of those asked for (acr_values=urn:a urn:b); the sign-in was refused"
        )
        #expect(
            Self.message { try parameters.check(Self.claims(), configuration: honouring, now: Self.now) }?
                .contains("has no acr") == true)
        try parameters.check(Self.claims(acr: "urn:c"), configuration: exampleConfiguration, now: Self.now)
        var other = exampleConfiguration
        other.acrValuesSupported = ["urn:z"]
        try parameters.check(Self.claims(), configuration: other, now: Self.now)
    }

    @Test("every claim is read as JSON, nested ones too, kept when encoded again, and nonce is not displayed")
    func allClaims() throws {
        let payload = #"""
            {"iss":"https://id.example.com","sub":"alice","aud":"app","exp":1800000600,"iat":1800000000,"nonce":"n",
             "acr":"urn:a","groups":["admins","staff"],"roles":{"app":["reader"],"level":3},"flag":true,"none":null}
            """#
        let claims = try JSONDecoder().decode(IDTokenClaims.self, from: Data(payload.utf8))
        #expect(claims.authenticationContextClass == "urn:a")
        #expect(claims.allClaims["groups"] == .array([.string("admins"), .string("staff")]))
        #expect(claims.allClaims["roles"] == .object(["app": .array([.string("reader")]), "level": .number(3)]))
        #expect(claims.allClaims["flag"] == .bool(true))
        #expect(claims.allClaims["none"] == .null)
        #expect(claims.displayableClaims["nonce"] == nil)
        #expect(claims.displayableClaims["sub"] == .string("alice"))
        let again = try JSONDecoder().decode(IDTokenClaims.self, from: JSONEncoder().encode(claims))
        #expect(again == claims)
        var changed = claims
        changed.subject = "bob"
        let reread = try JSONDecoder().decode(IDTokenClaims.self, from: JSONEncoder().encode(changed))
        #expect(reread.subject == "bob", "the typed property wins over its entry in allClaims")
    }

    @Test("an acr that is not a string is refused by name")
    func acrType() {
        let payload = #"{"iss":"i","sub":"s","aud":"a","exp":1800000600,"iat":1800000000,"acr":2}"#
        let jwt = "eyJhbGciOiJub25lIn0." + Base64URL.encode(Data(payload.utf8)) + "."
        #expect(
            Self.message { _ = try CompactJWT.parse(jwt).claims() }?.contains("'acr' is the number 2, not a string")
                == true)
    }
}
