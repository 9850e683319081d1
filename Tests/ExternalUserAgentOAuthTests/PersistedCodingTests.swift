// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore
import ExternalUserAgentABI
@testable import ExternalUserAgentOAuth
import Foundation
import Testing

/// Every type a state file (or a registration file) holds has one coding, its `Codable` conformance, which the file
/// is written and read with (`AuthStateFile.encoded`, `JSONDecoder`). These tests keep the writer and the reader from
/// drifting apart: each sample sets every stored property (a property added later and left `nil` fails here), each
/// property is either a coding key or named here with why it has none, every key is written, and what is written
/// reads back as the value it came from and writes the same bytes again.
@Suite("One coding per saved type: every property written, read back, written the same")
struct PersistedCodingTests {
    // MARK: the samples

    static let configuration: ServiceConfiguration = {
        var service = ServiceConfiguration(
            issuer: "https://id.example.com", authorizationEndpoint: URL(string: "https://id.example.com/authorize")!,
            tokenEndpoint: URL(string: "https://id.example.com/token")!,
            jwksURI: URL(string: "https://id.example.com/jwks"),
            userinfoEndpoint: URL(string: "https://id.example.com/userinfo"),
            authorizationResponseIssParameterSupported: true, codeChallengeMethodsSupported: ["S256"],
            tokenEndpointAuthMethodsSupported: ["client_secret_basic", "private_key_jwt"],
            idTokenSigningAlgValuesSupported: ["RS256", "ES256"],
            deviceAuthorizationEndpoint: URL(string: "https://id.example.com/device"))
        service.registrationEndpoint = URL(string: "https://id.example.com/register")
        service.endSessionEndpoint = URL(string: "https://id.example.com/logout")
        service.revocationEndpoint = URL(string: "https://id.example.com/revoke")
        service.revocationEndpointAuthMethodsSupported = ["client_secret_basic"]
        service.acrValuesSupported = ["urn:example:mfa"]
        service.pushedAuthorizationRequestEndpoint = URL(string: "https://id.example.com/par")
        service.requirePushedAuthorizationRequests = true
        return service
    }()

    static let tokens = TokenResponse(
        accessToken: "at", tokenType: "Bearer", expiresIn: 3600, refreshToken: "rt", idToken: "h.p.s",
        scope: "openid email", receivedAt: Date(timeIntervalSince1970: 1_800_000_000.25))

    static let claims = IDTokenClaims(
        issuer: "https://id.example.com", subject: "alice", audience: ["app", "other"],
        expiration: Date(timeIntervalSince1970: 2_000_000_000), issuedAt: Date(timeIntervalSince1970: 1_900_000_000),
        nonce: "n", authorizedParty: "app", authTime: Date(timeIntervalSince1970: 1_899_999_000), name: "Alice",
        email: "alice@example.com", preferredUsername: "al", authenticationContextClass: "urn:example:mfa",
        allClaims: ["groups": .array([.string("admins")]), "tenant": .object(["id": .number(7)])])

    static let identity = UserIdentity(
        subject: "alice", name: "Alice", preferredUsername: "al", email: "alice@example.com")

    static let error = OAuthErrorResponse(
        error: "access_denied", errorDescription: "no", errorURI: "https://id.example.com/help")

    static let revoked = RevokedTokens(
        kinds: [.refreshToken, .accessToken], date: Date(timeIntervalSince1970: 1_850_000_000))

    static func client() throws -> ClientCredentials {
        var client = ClientCredentials(clientID: "app", clientSecret: "s3cret", authenticationMethod: .clientSecretPost)
        client.idTokenAlgorithm = try IDTokenAlgorithm("ES256")
        return client
    }

    static func contents() throws -> AuthStateFile.Contents {
        var contents = AuthStateFile.Contents(
            configuration: configuration, client: try client(), scope: "openid email", tokenResponse: tokens,
            idTokenClaims: claims, identity: identity, authorizationError: error, dpopKey: DPoPKey(),
            refreshParameters: [("resource", "https://api.example.com"), ("resource", "https://b.example.com")],
            revokedTokens: revoked)
        contents.revision = 4
        return contents
    }

    // MARK: the checks

    /// The stored properties of `value` that are `nil`, by name.
    private func nilProperties(of value: Any) -> [String] {
        Mirror(reflecting: value).children.compactMap { child in
            let inner = Mirror(reflecting: child.value)
            return inner.displayStyle == .optional && inner.children.isEmpty ? child.label : nil
        }
    }

    /// `value` sets every stored property, has a coding key for each one but `withoutKey` (not saved, or saved under
    /// other keys: each named with why where it is called), plus `derived` keys written from other properties, and
    /// writes every one of its keys: a property added without its key, a member the writer leaves out, or a property
    /// left out of the sample fails here.
    private func expectEveryPropertyCoded<Value: Encodable, Keys: CodingKey & CaseIterable>(
        _ value: Value, keys: Keys.Type, withoutKey: Set<String> = [], derived: Int = 0,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let properties = Mirror(reflecting: value).children.compactMap(\.label).filter { !withoutKey.contains($0) }
        let keys = Keys.allCases.map(\.stringValue)
        let counts =
            "\(properties.count) properties saved (\(properties)) and \(derived) derived, but \(keys.count) coding keys "
            + "(\(keys)): each saved property needs its key, and each other one its reason here"
        #expect(
            properties.count + derived == keys.count, "\(type(of: value)): \(counts)", sourceLocation: sourceLocation)
        let unset = nilProperties(of: value).filter { !withoutKey.contains($0) }
        #expect(
            unset.isEmpty, "the sample leaves \(unset) nil: set it, so that its coding is tested",
            sourceLocation: sourceLocation)
        let written = try members(value)
        let unwritten = keys.filter { written[$0] == nil }
        #expect(unwritten.isEmpty, "\(type(of: value)) does not write \(unwritten)", sourceLocation: sourceLocation)
    }

    /// `value` written, read back and written again: the same bytes twice; returns what was read.
    @discardableResult
    private func roundTrip<Value: Codable>(
        _ value: Value, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Value {
        let written = try AuthStateFile.encoded(value)
        let read = try JSONDecoder().decode(Value.self, from: written)
        let again = try AuthStateFile.encoded(read)
        #expect(
            again == written,
            "written again differently:\n\(String(decoding: written, as: UTF8.self))\n\(String(decoding: again, as: UTF8.self))",
            sourceLocation: sourceLocation)
        return read
    }

    /// The members `value` writes.
    private func members(_ value: some Encodable) throws -> [String: JSONValue] {
        guard
            case .object(let members) = try JSONValue(
                parsing: String(decoding: AuthStateFile.encoded(value), as: UTF8.self))
        else { throw InvalidFieldError(field: "(top)", problem: "is not an object") }
        return members
    }

    // MARK: the types

    @Test("server metadata: every member written, URLs as strings, read back equal")
    func serviceConfiguration() throws {
        try expectEveryPropertyCoded(Self.configuration, keys: ServiceConfiguration.CodingKeys.self)
        #expect(try roundTrip(Self.configuration) == Self.configuration)
        #expect(try members(Self.configuration)["end_session_endpoint"] == .string("https://id.example.com/logout"))
    }

    @Test("tokens: the server's fields, and received_at beside them in the saved form only")
    func tokenResponse() throws {
        try expectEveryPropertyCoded(
            Self.tokens, keys: TokenResponse.CodingKeys.self,
            withoutKey: ["receivedAt"])  // this client's own time: saved by SavedTokens, never read from a server
        #expect(
            String(decoding: try JSONEncoder.sorted.encode(Self.tokens), as: UTF8.self)
                == #"{"access_token":"at","expires_in":3600,"id_token":"h.p.s","refresh_token":"rt","scope":"openid email","token_type":"Bearer"}"#
        )
        let saved = try roundTrip(AuthStateFile.SavedTokens(Self.tokens))
        #expect(saved.tokens == Self.tokens, "received_at kept to the fraction of a second")
        #expect(try members(AuthStateFile.SavedTokens(Self.tokens))["received_at"] == .number(1_800_000_000.25))
    }

    @Test("client: id, method, algorithm and confidential written; the secret never")
    func client() throws {
        let client = try Self.client()
        try expectEveryPropertyCoded(
            client, keys: ClientCredentials.CodingKeys.self,
            // Given again by the app each time, never saved: the secret and the signing key, and how the client
            // signs its requests; read back, the method counts as explicit.
            withoutKey: ["clientSecret", "signingKey", "signsRequestObjects", "authenticationMethodIsExplicit"],
            derived: 1)  // confidential: from the method
        let read = try roundTrip(client)
        #expect(read.clientID == "app" && read.authenticationMethod == .clientSecretPost)
        #expect(read.idTokenAlgorithm == client.idTokenAlgorithm && read.clientSecret == nil)
        let written = String(decoding: try AuthStateFile.encoded(client), as: UTF8.self)
        #expect(!written.contains("s3cret"), "the secret is never written")
        #expect(try members(client)["confidential"] == .bool(true))
    }

    @Test("ID token claims: typed ones over allClaims, aud as a list or one string; a time past 9999 throws")
    func idTokenClaims() throws {
        // allClaims: its members are written beside the typed claims, not under a key of its own.
        try expectEveryPropertyCoded(Self.claims, keys: IDTokenClaims.CodingKeys.self, withoutKey: ["allClaims"])
        let read = try roundTrip(Self.claims)
        #expect(read.subject == "alice" && read.audience == ["app", "other"] && read.authTime == Self.claims.authTime)
        #expect(read.allClaims["groups"] == .array([.string("admins")]))
        #expect(read.allClaims["tenant"] == .object(["id": .number(7)]))
        var one = Self.claims
        one.audience = ["app"]
        one.allClaims["sub"] = .string("someone else")
        let written = try members(one)
        #expect(written["aud"] == .string("app") && written["sub"] == .string("alice"), "the typed claim wins")
        #expect(written["exp"] == .number(2_000_000_000))
        var far = Self.claims
        far.expiration = Date(timeIntervalSince1970: 300_000_000_000)
        #expect(throws: EncodingError.self) { try AuthStateFile.encoded(far) }
    }

    @Test("identity, error, DPoP key and revoked tokens: read back equal")
    func smallTypes() throws {
        try expectEveryPropertyCoded(Self.identity, keys: UserIdentity.CodingKeys.self)
        #expect(try roundTrip(Self.identity) == Self.identity)
        try expectEveryPropertyCoded(Self.error, keys: OAuthErrorResponse.CodingKeys.self)
        #expect(try roundTrip(Self.error) == Self.error)
        let key = DPoPKey()
        #expect(try roundTrip(key) == key)
        #expect(Set(try members(key).keys) == ["kty", "crv", "x", "y", "d"])
        #expect(try roundTrip(Self.revoked) == Self.revoked)
        #expect(
            try members(Self.revoked)
                == [
                    "tokens": .array([.string("refresh_token"), .string("access_token")]), "at": .number(1_850_000_000),
                ])
    }

    @Test("the whole state: every part written and read back; the index and a registration too")
    func wholeState() throws {
        let contents = try Self.contents()
        try expectEveryPropertyCoded(contents, keys: AuthStateFile.Contents.CodingKeys.self)
        let read = try roundTrip(contents)
        #expect(read.revision == 4 && read.configuration == Self.configuration && read.tokenResponse == Self.tokens)
        #expect(try read.idTokenClaims.map { try AuthStateFile.encoded($0) } == AuthStateFile.encoded(Self.claims))
        #expect(read.identity == Self.identity)
        #expect(read.authorizationError == Self.error && read.dpopKey == contents.dpopKey)
        #expect(read.refreshParameters.map(\.value) == ["https://api.example.com", "https://b.example.com"])
        #expect(read.revokedTokens == Self.revoked)
        #expect(String(decoding: try AuthStateFile.encoded(contents), as: UTF8.self).hasSuffix("}\n"))
        let compact = String(decoding: try AuthStateFile.encoded(contents, indented: false), as: UTF8.self)
        #expect(!compact.contains("\n") && compact.contains(#""issuer":"https://id.example.com""#))

        let index = AuthStateFile.Index(revision: 2, issuer: "https://id.example.com", client_id: "app", subject: "")
        let readIndex = try roundTrip(index)
        #expect(readIndex.key == index.key && readIndex.revision == 2 && readIndex.storage == "secret-service")

        let registration = ClientRegistration(
            issuer: "https://id.example.com", clientID: "app", clientSecret: "s",
            clientSecretExpiresAt: Date(timeIntervalSince1970: 1_900_000_000), registrationAccessToken: "rat",
            registrationClientURI: URL(string: "https://id.example.com/register/app"),
            redirectURIs: [URL(string: "http://127.0.0.1/callback")!], tokenEndpointAuthMethod: .clientSecretBasic,
            idTokenAlgorithm: try IDTokenAlgorithm("RS256"))
        try expectEveryPropertyCoded(registration, keys: ClientRegistration.CodingKeys.self)
        #expect(try roundTrip(registration) == registration)
    }
}

extension JSONEncoder {
    /// Compact, keys sorted, slashes as they are.
    fileprivate static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
