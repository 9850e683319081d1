import ArgumentParser
import EUACommandSupport
import ExternalUserAgent
import ExternalUserAgentOAuth
import Logging
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `eua refresh`: new tokens from a saved state's refresh token.
struct RefreshCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: OAuthCommands.refresh.0,
        abstract: OAuthCommands.refresh.1,
        discussion: "A confidential client needs its secret again (--client-secret or EUA_CLIENT_SECRET): it is never saved."
    )

    @Option(help: "The saved state (default: $XDG_STATE_HOME/eua/auth-state.json).")
    var stateFile: String?

    @Option(help: "The client secret, for a confidential client (default: $EUA_CLIENT_SECRET).")
    var clientSecret: String?

    @Option(help: ArgumentHelp("The client's private key file, for a client that authenticates with private_key_jwt.", valueName: "file"))
    var clientKey: String?

    @Flag(help: "Refresh only when the access token expires within a minute.")
    var ifNeeded = false

    @Flag(help: "Print the token response as one JSON object on the last line (it holds the tokens).")
    var json = false

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        CommandLogging.bootstrap(environment: environment)
        let logger = Logger(label: "eua.refresh")
        let file = stateFile.map(AuthStateFile.init(path:)) ?? AuthStateFile.standard(environment: environment)
        let secret = clientSecret ?? environment["EUA_CLIENT_SECRET"].flatMap { $0.isEmpty ? nil : $0 }
        let force = !ifNeeded
        let outcome = try Blocking.run {
            try await CommandFailure.reporting {
                let state = try AuthState.loadUsingRegistration(from: file, clientSecret: secret, clientKeyPath: clientKey,
                                                                logger: logger)
                let tokens = try await state.freshTokens(force: force)
                return (tokens, await state.idTokenClaims, state.configuration.issuer)
            }
        }
        let (tokens, claims, issuer) = outcome
        if json {
            Output.json(try TokenOutput(tokens: tokens, claims: claims, issuer: issuer, stateFile: file.path).jsonText())
        } else {
            let who = claims.map { " for \($0.displayName)" } ?? ""
            let until = tokens.accessTokenExpirationDate.map { ", valid until \($0.formatted(.iso8601))" } ?? ""
            Output.line("Tokens\(who) at \(issuer) are fresh\(until).")
            Output.line("State saved to \(file.path).")
        }
    }
}
