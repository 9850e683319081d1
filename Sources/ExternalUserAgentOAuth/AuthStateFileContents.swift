// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore
import ExternalUserAgentABI

/// What an ``AuthStateFile`` holds, and how it is read and written: the state itself (``Contents``), the parts of it
/// saved in a form of their own, the marker read before every save, and the Secret Service index.
extension AuthStateFile {
    /// The JSON text of `value` (``Contents``, an ``Index``) as a state file holds it: keys sorted, two-space indents,
    /// a newline at the end; on one line when not `indented` (a state kept in a Secret Service item).
    static func encoded(_ value: some Encodable, indented: Bool = true) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard indented else { return try encoder.encode(value) }
        encoder.outputFormatting.insert(.prettyPrinted)
        return try encoder.encode(value) + Data("\n".utf8)
    }

    struct Contents: Codable {
        var format = AuthStateFile.format
        var version = AuthStateFile.version
        /// Counts the saves of this file; absent (0) in files written before revisions.
        var revision = 0
        var configuration: ServiceConfiguration
        var client: ClientCredentials
        var scope: String?
        var tokenResponse: TokenResponse?
        var idTokenClaims: IDTokenClaims?
        var identity: UserIdentity?
        var authorizationError: OAuthErrorResponse?
        /// The DPoP private key (a JWK), for a DPoP sign-in.
        var dpopKey: DPoPKey?
        /// The token request parameters every refresh sends again (`resource`…), in order.
        var refreshParameters: [(name: String, value: String)] = []
        /// The tokens a sign-out revoked: the state gives no token any more.
        var revokedTokens: RevokedTokens?

        init(
            configuration: ServiceConfiguration, client: ClientCredentials, scope: String?,
            tokenResponse: TokenResponse?, idTokenClaims: IDTokenClaims?, identity: UserIdentity? = nil,
            authorizationError: OAuthErrorResponse?, dpopKey: DPoPKey? = nil,
            refreshParameters: [(name: String, value: String)] = [], revokedTokens: RevokedTokens? = nil
        ) {
            self.revokedTokens = revokedTokens
            self.dpopKey = dpopKey
            self.refreshParameters = refreshParameters
            self.configuration = configuration
            self.client = client
            self.scope = scope
            self.tokenResponse = tokenResponse
            self.idTokenClaims = idTokenClaims
            self.identity = identity
            self.authorizationError = authorizationError
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case format, version, revision, configuration, client, scope
            case tokenResponse = "token_response"
            case idTokenClaims = "id_token_claims"
            case identity = "userinfo"
            case authorizationError = "authorization_error"
            case dpopKey = "dpop_key"
            case refreshParameters = "refresh_parameters"
            case revokedTokens = "revoked"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            format = try container.decode(String.self, forKey: .format)
            version = try container.decode(Int.self, forKey: .version)
            revision = try container.decodeIfPresent(Int.self, forKey: .revision) ?? 0
            guard (0..<Int.max).contains(revision) else {
                throw InvalidFieldError(field: "revision", problem: "is \(revision), not a count of saves")
            }
            configuration = try container.decode(ServiceConfiguration.self, forKey: .configuration)
            client = try container.decode(ClientCredentials.self, forKey: .client)
            scope = try container.decodeIfPresent(String.self, forKey: .scope)
            tokenResponse = try container.decodeIfPresent(SavedTokens.self, forKey: .tokenResponse)?.tokens
            idTokenClaims = try container.decodeIfPresent(IDTokenClaims.self, forKey: .idTokenClaims)
            identity = try container.decodeIfPresent(UserIdentity.self, forKey: .identity)
            authorizationError = try container.decodeIfPresent(OAuthErrorResponse.self, forKey: .authorizationError)
            dpopKey = try container.decodeIfPresent(DPoPKey.self, forKey: .dpopKey)
            refreshParameters =
                try container.decodeIfPresent([SavedParameter].self, forKey: .refreshParameters)?
                .map { ($0.name, $0.value) } ?? []
            revokedTokens = try container.decodeIfPresent(RevokedTokens.self, forKey: .revokedTokens)
        }

        /// Writes what ``init(from:)`` reads; throws what ``IDTokenClaims`` throws for a time it cannot write.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(format, forKey: .format)
            try container.encode(version, forKey: .version)
            try container.encode(revision, forKey: .revision)
            try container.encode(configuration, forKey: .configuration)
            try container.encode(client, forKey: .client)
            try container.encodeIfPresent(scope, forKey: .scope)
            try container.encodeIfPresent(tokenResponse.map(SavedTokens.init), forKey: .tokenResponse)
            try container.encodeIfPresent(idTokenClaims, forKey: .idTokenClaims)
            try container.encodeIfPresent(identity, forKey: .identity)
            try container.encodeIfPresent(authorizationError, forKey: .authorizationError)
            try container.encodeIfPresent(dpopKey, forKey: .dpopKey)
            if !refreshParameters.isEmpty {
                try container.encode(
                    refreshParameters.map { SavedParameter(name: $0.name, value: $0.value) },
                    forKey: .refreshParameters)
            }
            try container.encodeIfPresent(revokedTokens, forKey: .revokedTokens)
        }
    }

    /// One saved refresh parameter: `{"name": …, "value": …}`, both strings, the name not empty.
    struct SavedParameter: Codable {
        var name: String
        var value: String

        init(name: String, value: String) {
            self.name = name
            self.value = value
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            value = try container.decode(String.self, forKey: .value)
            guard !name.isEmpty else {
                throw InvalidFieldError(field: "refresh_parameters", problem: "has an empty name")
            }
        }

        enum CodingKeys: String, CodingKey, CaseIterable { case name, value }
    }

    /// A token response as saved: the server's fields, and `received_at`, this client's own time,
    /// which only the file may set (the server's JSON never does).
    struct SavedTokens: Codable {
        var tokens: TokenResponse

        enum CodingKeys: String, CodingKey { case receivedAt = "received_at" }

        init(_ tokens: TokenResponse) { self.tokens = tokens }

        init(from decoder: any Decoder) throws {
            tokens = try TokenResponse(from: decoder)
            tokens.receivedAt = try JSONFields<CodingKeys>(decoder).requiredNumericDate(.receivedAt)
        }

        /// The server's fields, and `received_at` in seconds since 1970.
        func encode(to encoder: any Encoder) throws {
            try tokens.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(tokens.receivedAt.timeIntervalSince1970, forKey: .receivedAt)
        }
    }

    /// What a state file says of itself, read without `Codable` (it is read before every save); `nil` when
    /// the text is not a JSON object or one of these members has the wrong type.
    struct Marker {
        var format: String?
        var version: Int?
        var revision: Int?
        var storage: String?

        enum CodingKeys: String, CodingKey { case format, version, revision, storage }

        init?(_ data: Data) {
            guard let fields = try? JSONFields<CodingKeys>(json: data) else { return nil }
            do {
                format = try fields.optionalString(.format)
                // Any whole number: the version is compared, the revision checked where the contents are read.
                version = try fields.optionalWholeNumber(.version, in: -(1 << 53)...(1 << 53))
                revision = try fields.optionalWholeNumber(.revision, in: -(1 << 53)...(1 << 53))
                storage = try fields.optionalString(.storage)
            } catch {
                return nil
            }
        }
    }

    /// What the file holds with the secret-service back end: where to find the state, no secret.
    struct Index: Codable {
        var format = AuthStateFile.format
        var version = AuthStateFile.version
        var revision: Int
        var storage = StorageBackend.secretService.rawValue
        var issuer: String
        var client_id: String
        var subject: String

        var key: AccountKey {
            AccountKey(issuer: issuer, clientID: client_id, subject: subject.isEmpty ? nil : subject)
        }
    }
}
