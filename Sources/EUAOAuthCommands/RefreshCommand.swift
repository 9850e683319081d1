// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ArgumentParser
import EUACommandSupport
import ExternalUserAgentCore
import ExternalUserAgentOAuth
import ExternalUserAgentSystem
import Logging
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `eua refresh`: new tokens from a saved state's refresh token.
package struct RefreshCommand: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "refresh",
        abstract: "Refresh the tokens of a state saved by 'eua login', and save them.",
        discussion: """
            A confidential client needs its secret again (--client-secret-file or EUA_CLIENT_SECRET): it is never \
            saved; the state records that the client is confidential and how it sends the secret. --timeout bounds \
            the whole refresh (keys included).
            """
    )

    @Option(help: "The saved state file (default: the account --account names, see 'eua accounts').")
    var stateFile: String?

    @Option(
        help: ArgumentHelp(
            "The signed-in account: an id, subject, email or username as 'eua accounts' lists, or the start of one (default: the only account).",
            valueName: "account"))
    var account: String?

    @Option(
        help: "The client secret. Other users can read it in 'ps': prefer --client-secret-file or EUA_CLIENT_SECRET.")
    var clientSecret: String?

    @Option(
        help: ArgumentHelp(
            "The client's private key file, for a client that authenticates with private_key_jwt.", valueName: "file"))
    var clientKey: String?

    @Option(
        help: ArgumentHelp(
            "A file holding the client secret (yours, mode 0600); default: $EUA_CLIENT_SECRET.",
            valueName: "path"))
    var clientSecretFile: String?

    @Option(help: "Seconds the refresh may take, server requests included.")
    var timeout: Int = 60

    @Flag(help: "Refresh only when the access token expires within a minute.")
    var ifNeeded = false

    @Flag(help: "Print the token response as one JSON object on the last line (it holds the tokens).")
    var json = false

    package func validate() throws {
        guard (1...86_400).contains(timeout) else {
            throw ValidationError("--timeout must be a number of seconds from 1 to 86400")
        }
        if clientSecret != nil, clientSecretFile != nil {
            throw ValidationError("give --client-secret-file or --client-secret, not both")
        }
        if stateFile != nil, account != nil { throw ValidationError(SavedStateChoice.conflict) }
    }

    package func run() throws {
        let environment = ProcessEnvironment.current()
        CommandLogging.bootstrap(environment: environment)
        let logger = Logger(label: "eua.refresh")
        let secret = try ClientSecretSource.secret(file: clientSecretFile, flag: clientSecret, environment: environment)
        let force = !ifNeeded
        let seconds = timeout
        let outcome = try Blocking.run {
            try await CommandFailure.reporting {
                let http = OAuthHTTP().ending(after: .seconds(seconds))
                let choice = try await SavedStateChoice.choose(
                    stateFile: stateFile, account: account, environment: environment)
                let state = try AuthState.loadUsingRegistration(
                    from: choice.file, registrationHome: choice.registrationHome,
                    clientSecret: secret, clientKeyPath: clientKey,
                    http: http, logger: logger)
                let before = await state.lastTokenResponse?.accessToken
                let tokens = try await state.freshTokens(force: force)
                return (
                    tokens, await state.idTokenClaims, await state.identity, state.client, state.configuration.issuer,
                    choice.file, tokens.accessToken != before
                )
            }
        }
        let (tokens, claims, identity, client, issuer, file, refreshed) = outcome
        if json {
            Output.json(
                try TokenOutput(
                    tokens: tokens, claims: claims, identity: identity, client: client, issuer: issuer,
                    stateFile: file.path
                ).jsonText())
        } else {
            let who = SignedInAs.name(claims: claims, identity: identity).map { " for \($0)" } ?? ""
            let expiry = tokens.accessTokenExpirationDate.map { $0.formatted(.iso8601) }
            if refreshed {
                Output.line("Tokens\(who) at \(issuer) are fresh\(expiry.map { ", valid until \($0)" } ?? "").")
                Output.line("State saved to \(file.path).")
            } else {
                Output.line(
                    "Nothing was refreshed: the access token\(who) at \(issuer) is still valid "
                        + (expiry.map { "until \($0) (more than a minute left)" } ?? "(the server gave it no lifetime)")
                        + "; without --if-needed the tokens are refreshed anyway.")
                Output.line("State unchanged in \(file.path).")
            }
        }
    }
}
