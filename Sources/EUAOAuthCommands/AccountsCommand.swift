// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ArgumentParser
import EUACommandSupport
import ExternalUserAgentCore
import ExternalUserAgentOAuth
import ExternalUserAgentSystem
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `eua accounts`: the signed-in accounts `eua login` saved — who, where, until when; never a token.
package struct AccountsCommand: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "accounts",
        abstract: "List the signed-in accounts 'eua login' saved (issuer, client, subject, expiry; never a token).",
        discussion: """
            One account per issuer, client and subject, saved in $XDG_STATE_HOME/eua/accounts (a state file of \
            the earlier single-account layout, auth-state.json, is moved there). Pick one for 'eua token', \
            'eua refresh' or 'eua userinfo' with --account: its id, subject, email or username, or the start of \
            one that names a single account. With the Secret Service back end ('eua doctor' says which is used and \
            why; [storage] backend or EUA_STORAGE forces one) each file there is an index without secrets and the \
            tokens are a keyring item labelled 'eua: <issuer> <account> (<client>)'.
            """
    )

    @Flag(
        help:
            "Print one JSON array: id, issuer, client_id, subject, name, email, username, expires_at, can_refresh, needs_sign_in, revoked_at (an unfinished sign-out), backend, state_file."
    )
    var json = false

    package func run() throws {
        let environment = ProcessEnvironment.current()
        CommandLogging.bootstrap(environment: environment)
        let store = AuthAccounts.standard(environment: environment)
        let listing = try Blocking.run { try await CommandFailure.reporting { try await store.listing() } }
        let accounts = listing.accounts
        SavedStateChoice.warn(unreadable: listing.unreadable)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            Output.json(String(decoding: try encoder.encode(accounts.map(AccountJSON.init)), as: UTF8.self))
            return
        }
        guard !accounts.isEmpty else {
            if !listing.unreadable.isEmpty {
                Output.errorLine(
                    "eua accounts: no account file in \(store.folder) can be read (see above); remove or "
                        + "repair those files, or sign in again with 'eua login'")
                Output.exit(1)
            }
            Output.line("No account is signed in (none saved in \(store.folder)); sign in with 'eua login'.")
            return
        }
        for account in accounts {
            Output.line("\(account.label): \(Self.status(account)), back end \(account.backend.rawValue)")
        }
    }

    /// `access token valid until …, can refresh`, or what to do.
    static func status(_ account: SavedAccount) -> String {
        if let revoked = account.revokedTokens {
            return "signed out (its \(revoked.kinds.map(\.words).joined(separator: " and ")) revoked at "
                + "\(revoked.date.formatted(.iso8601)); the sign-out did not finish: run 'eua logout' to end it, or sign in again)"
        }
        if account.needsSignIn { return "sign in again (the server refused the refresh token)" }
        let expiry =
            account.accessTokenExpiry.map {
                ($0 > Date() ? "access token valid until " : "access token expired at ")
                    + $0.formatted(.iso8601)
            } ?? "access token of unknown lifetime"
        return expiry + (account.canRefresh ? ", can refresh" : ", no refresh token")
    }
}

/// One account in `eua accounts --json`.
struct AccountJSON: Encodable {
    var id: String
    var issuer: String
    var client_id: String
    var subject: String?
    var name: String?
    var email: String?
    var username: String?
    var expires_at: String?
    var can_refresh: Bool
    var needs_sign_in: Bool
    /// When a sign-out revoked the tokens (an `eua logout` that did not finish); absent otherwise.
    var revoked_at: String?
    var backend: String
    var state_file: String

    init(_ account: SavedAccount) {
        id = account.id
        issuer = account.key.issuer
        client_id = account.key.clientID
        subject = account.key.subject
        name = account.name
        email = account.email
        username = account.username
        expires_at = account.accessTokenExpiry?.formatted(.iso8601)
        can_refresh = account.canRefresh
        needs_sign_in = account.needsSignIn
        revoked_at = account.revokedTokens?.date.formatted(.iso8601)
        expires_at = account.revokedTokens == nil ? expires_at : nil
        state_file = account.file.path
        backend = account.backend.rawValue
    }
}
