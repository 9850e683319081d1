// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One signed-in account of ``AuthAccounts``, as `eua accounts` lists it: who, where, until when — never a token.
public struct SavedAccount: Sendable, Hashable {
    /// The issuer, client and subject that tell it from the others.
    public var key: AccountKey
    /// The file that holds its state (load it with `AuthState.load(from:)`).
    public var file: AuthStateFile
    /// A short, stable id for `--account`: the file name without `.json` (32 hexadecimal digits).
    public var id: String
    /// The `name` claim, when the ID token or UserInfo gave one.
    public var name: String?
    /// The `email` claim, when given.
    public var email: String?
    /// The `preferred_username` claim, when given.
    public var username: String?
    /// When the access token expires; `nil` when the server gave no lifetime.
    public var accessTokenExpiry: Date?
    /// Whether a refresh token is saved, so an expired access token can be renewed without signing in.
    public var canRefresh: Bool
    /// Whether the server refused the refresh token, or a sign-out revoked the tokens: sign in again.
    public var needsSignIn: Bool
    /// The tokens a sign-out revoked, when one did (an interrupted `eua logout`): no token is given any more.
    public var revokedTokens: RevokedTokens?
    /// Where its tokens are: in the file, or in the Secret Service (the file is then an index).
    public var backend: StorageBackend

    init(file: AuthStateFile, contents: AuthStateFile.Contents) {
        let claims = contents.idTokenClaims
        let identity = contents.identity
        key = AccountKey(
            issuer: contents.configuration.issuer, clientID: contents.client.clientID,
            subject: claims?.subject ?? identity?.subject)
        self.file = file
        let name = String(file.path.split(separator: "/").last ?? "")
        id = name.hasSuffix(".json") ? String(name.dropLast(5)) : name
        self.name = claims?.name ?? identity?.name
        email = claims?.email ?? identity?.email
        username = claims?.preferredUsername ?? identity?.preferredUsername
        accessTokenExpiry = contents.tokenResponse?.accessTokenExpirationDate
        revokedTokens = contents.revokedTokens
        canRefresh = contents.revokedTokens == nil && contents.tokenResponse?.refreshToken != nil
        needsSignIn =
            contents.authorizationError != nil || contents.tokenResponse == nil || contents.revokedTokens != nil
        backend = file.storedBackend()
    }

    /// How a person recognises it in a list: `alice (alice@example.com, subject 1) at https://id.example.com, client
    /// app [id …]`. It leads with the username (else the email, else the name) and names the subject as one: a bare
    /// subject first (`1 (alice, …)`) would read as a list number.
    public var label: String {
        let known = [username, email, name].compactMap { $0 }.filter { !$0.isEmpty }
        var who = key.subject.map { "subject \($0)" } ?? "unknown subject"
        if let lead = known.first {
            var more = [username, email].compactMap { $0 }.filter { !$0.isEmpty && $0 != lead }
            if let subject = key.subject, subject != lead, !more.contains(subject) { more.append("subject \(subject)") }
            who = more.isEmpty ? lead : "\(lead) (\(more.joined(separator: ", ")))"
        }
        return "\(who) at \(key.issuer), client \(key.clientID) [id \(id)]"
    }
}
