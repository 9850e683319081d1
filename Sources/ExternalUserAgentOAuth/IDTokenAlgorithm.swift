// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore

/// The algorithm a client registered for its ID tokens (`id_token_signed_response_alg`, OpenID Connect
/// Registration §2), when it is not the default.
///
/// Without one (`nil` wherever this type is taken), an ID token must be signed with one of
/// ``IDTokenValidator/acceptedAlgorithms`` (RSA or ECDSA). With one, only that algorithm is accepted:
/// - an asymmetric algorithm (`RS256`…) is checked against the provider's key set, as by default;
/// - `HS256`, `HS384`, `HS512`: the signature is checked with the client secret (OpenID Connect Core
///   §10.1), so only a confidential client may register them;
/// - `none`: an unsigned ID token is accepted only when it came straight from the token endpoint in the
///   code flow (OpenID Connect Core §3.1.3.7 step 6); every claim is still checked.
public struct IDTokenAlgorithm: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The JOSE name (`RS256`, `HS256`, `none`).
    public let name: String

    /// The HMAC algorithms, verified with the client secret.
    public static let symmetricAlgorithms: Set<String> = ["HS256", "HS384", "HS512"]
    /// Every name ``init(_:)`` accepts.
    public static var knownAlgorithms: Set<String> {
        IDTokenValidator.acceptedAlgorithms.union(symmetricAlgorithms).union(["none"])
    }

    /// The unsigned ID token of a client registered with `none`.
    public static let none = IDTokenAlgorithm(checked: "none")

    /// `name` as registered; throws `invalidOptions` for a name that is not a JWS algorithm this client knows.
    public init(_ name: String) throws {
        guard Self.knownAlgorithms.contains(name) else {
            throw ExternalUserAgentError(
                .invalidOptions,
                "'\(UntrustedText.printable(name))' is not an ID token algorithm this client knows; use one of "
                    + Self.knownAlgorithms.sorted().joined(separator: ", ") + " (names are case-sensitive)")
        }
        self.name = name
    }

    private init(checked name: String) { self.name = name }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard Self.knownAlgorithms.contains(text) else {
            throw InvalidFieldError(
                field: "id_token_signed_response_alg",
                problem: "is \(UntrustedText.quoted(text)), not an algorithm this client knows")
        }
        name = text
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }

    public var description: String { name }

    /// Whether the signature is an HMAC made with the client secret.
    public var isSymmetric: Bool { Self.symmetricAlgorithms.contains(name) }
    /// Whether ID tokens are unsigned.
    public var isNone: Bool { name == "none" }

    /// Throws `invalidOptions` when `client` cannot use this algorithm: HMAC needs a confidential client.
    public func check(for client: ClientCredentials) throws {
        guard isSymmetric else { return }
        guard client.clientSecret?.isEmpty == false, client.authenticationMethod != .none else {
            throw ExternalUserAgentError(
                .invalidOptions,
                "ID tokens signed with \(name) are checked with the client secret (OpenID Connect Core §10.1), and "
                    + "client '\(client.clientID)' is a public client with no secret; give the secret, "
                    + "or register an asymmetric algorithm (RS256)", remedies: [.giveClientSecret])
        }
    }
}

/// How an ID token reached the client: an unsigned one (`none`) is accepted only from ``codeExchange``.
public enum IDTokenDelivery: Sendable, Hashable {
    /// The token endpoint's answer to the authorization code exchange, over the client's own connection.
    case codeExchange
    /// A refresh (OpenID Connect Core §12.2).
    case refresh
    /// The device authorization grant (RFC 8628).
    case deviceGrant
    /// Anywhere else (given by a caller, from a file).
    case other
}

extension IDTokenValidator {
    /// Checks the header's `alg` against the registered algorithm (or the default set) before anything else.
    static func checkAlgorithm(
        _ alg: String, registered: IDTokenAlgorithm?, delivery: IDTokenDelivery,
        what: String = "the ID token"
    ) throws {
        let shown = UntrustedText.printable(alg)
        guard let registered else {
            guard acceptedAlgorithms.contains(alg) else {
                throw invalid(
                    "\(what) is signed with '\(shown)', which this client does not accept by default; "
                        + "accepted: " + acceptedAlgorithms.sorted().joined(separator: ", ")
                        + (IDTokenAlgorithm.knownAlgorithms.contains(alg)
                            ? "; if the client is registered with id_token_signed_response_alg \(shown), say so"
                            : ""),
                    remedies: IDTokenAlgorithm.knownAlgorithms.contains(alg) ? [.giveIDTokenAlgorithm] : [])
            }
            return
        }
        guard alg == registered.name else {
            throw invalid(
                "\(what) is signed with '\(shown)', but the client is registered with '\(registered.name)' "
                    + "(id_token_signed_response_alg); any other algorithm is refused — check the client's registration"
            )
        }
        if registered.isNone, delivery != .codeExchange {
            throw invalid(
                "\(what) is unsigned (alg none), which is accepted only straight from the token endpoint "
                    + "in the code flow (OpenID Connect Core §3.1.3.7); this one came from \(delivery.words) — sign in again"
            )
        }
    }
}

extension IDTokenDelivery {
    var words: String {
        switch self {
        case .codeExchange: "the code exchange"
        case .refresh: "a refresh"
        case .deviceGrant: "the device authorization grant"
        case .other: "elsewhere"
        }
    }
}
