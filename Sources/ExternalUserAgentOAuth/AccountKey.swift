// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What tells one signed-in account from another in ``AuthAccounts``: the issuer, the client and the
/// subject. A new sign-in with the same key replaces the account; another subject adds one.
public struct AccountKey: Sendable, Hashable, Codable {
    /// The issuer identifier the account signed in to.
    public var issuer: String
    /// The client id that signed in.
    public var clientID: String
    /// The ID token's (or UserInfo's) `sub`; `nil` when the sign-in told nobody (plain OAuth 2.0).
    public var subject: String?

    /// The key of an account signed in to `issuer` as `clientID` by `subject`.
    public init(issuer: String, clientID: String, subject: String?) {
        self.issuer = issuer
        self.clientID = clientID
        self.subject = subject
    }

    /// The name of the account's file: a SHA-256 of the three parts, so any issuer, client or subject
    /// (slashes, dots, any length) makes a plain, fixed-length file name.
    public var fileName: String {
        let text = [issuer, clientID, subject ?? ""].joined(separator: "\n")
        let digest = SHA256.hash(data: Data(text.utf8))
        return digest.prefix(16).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined() + ".json"
    }
}
