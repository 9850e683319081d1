// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Proof Key for Code Exchange (RFC 7636), always with the `S256` method; `plain` is never sent.
public struct PKCE: Sendable, Hashable {
    /// The secret kept by the client and sent only to the token endpoint.
    public let codeVerifier: String
    /// `BASE64URL(SHA256(codeVerifier))`, sent in the authorization request.
    public let codeChallenge: String
    /// Always `S256`.
    public var codeChallengeMethod: String { "S256" }

    /// A fresh verifier of `length` (43–128) unreserved characters from the system CSPRNG.
    public init(length: Int = 64) {
        precondition((43...128).contains(length), "a PKCE code verifier has 43 to 128 characters (RFC 7636 §4.1)")
        self.init(verifier: SecureRandom.string(length: length, alphabet: SecureRandom.unreserved))
    }

    /// Rebuilds the pair from a known verifier (a saved flow, a test vector).
    public init(verifier: String) {
        codeVerifier = verifier
        codeChallenge = Self.challenge(for: verifier)
    }

    /// The S256 challenge of `verifier`.
    public static func challenge(for verifier: String) -> String {
        Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8))))
    }
}
