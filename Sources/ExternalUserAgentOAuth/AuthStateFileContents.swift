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
    struct Contents: Decodable {
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

        enum CodingKeys: String, CodingKey {
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

        /// The file's JSON object; throws what ``IDTokenClaims`` throws for a time it cannot write.
        func jsonValue() throws -> JSONValue {
            var members = JSONMembers<CodingKeys>()
            members.set(.format, format)
            members.set(.version, version)
            members.set(.revision, revision)
            members.set(.configuration, configuration.jsonValue)
            members.set(.client, client.jsonValue)
            members.set(.scope, scope)
            members.set(.tokenResponse, tokenResponse.map(SavedTokens.jsonValue))
            members.set(.idTokenClaims, try idTokenClaims?.jsonValue())
            members.set(.identity, identity?.jsonValue)
            members.set(.authorizationError, authorizationError?.jsonValue)
            members.set(.dpopKey, dpopKey?.jsonValue)
            members.set(.revokedTokens, revokedTokens?.jsonValue)
            if !refreshParameters.isEmpty {
                members.set(
                    .refreshParameters,
                    JSONValue.array(
                        refreshParameters.map {
                            .object(["name": .string($0.name), "value": .string($0.value)])
                        }))
            }
            return members.object
        }
    }

    /// One saved refresh parameter: `{"name": …, "value": …}`, both strings, the name not empty.
    struct SavedParameter: Decodable {
        var name: String
        var value: String

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            value = try container.decode(String.self, forKey: .value)
            guard !name.isEmpty else {
                throw InvalidFieldError(field: "refresh_parameters", problem: "has an empty name")
            }
        }

        enum CodingKeys: String, CodingKey { case name, value }
    }

    /// A token response as saved: the server's fields, and `received_at`, this client's own time,
    /// which only the file may set (the server's JSON never does).
    struct SavedTokens: Decodable {
        var tokens: TokenResponse

        enum CodingKeys: String, CodingKey { case receivedAt = "received_at" }

        init(_ tokens: TokenResponse) { self.tokens = tokens }

        init(from decoder: any Decoder) throws {
            tokens = try TokenResponse(from: decoder)
            tokens.receivedAt = try JSONFields<CodingKeys>(decoder).requiredNumericDate(.receivedAt)
        }

        /// The server's fields, and `received_at` in seconds since 1970.
        static func jsonValue(_ tokens: TokenResponse) -> JSONValue {
            guard case .object(var members) = tokens.jsonValue else { return tokens.jsonValue }
            members[CodingKeys.receivedAt.stringValue] = .number(tokens.receivedAt.timeIntervalSince1970)
            return .object(members)
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
    struct Index: Decodable {
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

        var jsonValue: JSONValue {
            .object([
                "format": .string(format), "version": .number(Double(version)), "revision": .number(Double(revision)),
                "storage": .string(storage), "issuer": .string(issuer), "client_id": .string(client_id),
                "subject": .string(subject),
            ])
        }
    }
}
