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

/// `eua token`: a fresh access token on stdout, for scripts (like `gcloud auth print-access-token`).
package struct TokenCommand: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print a fresh access token for scripts, refreshing and saving first when needed.",
        discussion: """
            Prints the saved access token, one line and nothing else, when it stays valid for --min-valid seconds \
            (then no plugin is loaded and nothing is sent); else refreshes it first and saves the new tokens. A \
            confidential client needs its secret for a refresh (--client-secret-file or EUA_CLIENT_SECRET). Exit \
            status: 0 printed; \(TokenCommand.signInNeeded) sign-in needed (no account, no refresh token, or the \
            server refused it: run 'eua login'); 1 any other error (server, network, state file, --account); \
            64 a usage error.
            """
    )

    /// The exit status when only a new sign-in can give a token.
    static let signInNeeded: Int32 = 2

    @Option(help: "The saved state file (default: the account --account names, see 'eua accounts').")
    var stateFile: String?

    @Option(
        help: ArgumentHelp(
            "The signed-in account: an id, subject, email or username as 'eua accounts' lists, or the start of one (default: the only account).",
            valueName: "account"))
    var account: String?

    @Option(
        help: ArgumentHelp(
            "Refresh first unless the token stays valid this many seconds (0 to 86400).",
            valueName: "seconds"))
    var minValid: Int = 60

    @Option(
        help: ArgumentHelp(
            "A file holding the client secret (yours, mode 0600); default: $EUA_CLIENT_SECRET.",
            valueName: "path"))
    var clientSecretFile: String?

    @Option(
        help: ArgumentHelp(
            "The client's private key file, for a client that authenticates with private_key_jwt.", valueName: "file"))
    var clientKey: String?

    @Option(help: "Seconds a refresh may take, server requests included.")
    var timeout: Int = 60

    @Flag(help: "Print one JSON object: access_token, token_type, expires_at (ISO 8601, when known).")
    var json = false

    package func validate() throws {
        guard (0...86_400).contains(minValid) else {
            throw ValidationError("--min-valid must be a number of seconds from 0 to 86400")
        }
        guard (1...86_400).contains(timeout) else {
            throw ValidationError("--timeout must be a number of seconds from 1 to 86400")
        }
        if stateFile != nil, account != nil { throw ValidationError(SavedStateChoice.conflict) }
    }

    package func run() throws {
        let environment = ProcessEnvironment.current()
        CommandLogging.bootstrap(environment: environment)
        let logger = Logger(label: "eua.token")
        let secret = try ClientSecretSource.secret(file: clientSecretFile, flag: nil, environment: environment)
        let (seconds, minimum) = (timeout, minValid)
        let outcome: Result<TokenResponse, ExternalUserAgentError> = try Blocking.run {
            try await CommandFailure.reporting {
                try await Self.tokens(
                    stateFile: stateFile, account: account,
                    environment: environment, secret: secret, clientKey: clientKey, timeout: seconds, minimum: minimum,
                    logger: logger)
            }
        }
        switch outcome {
        case .success(let tokens):
            if json {
                Output.json(try TokenJSON(tokens).jsonText())
            } else {
                Output.line(tokens.accessToken)
            }
        case .failure(let error):
            Output.errorLine("eua token: sign-in needed: \(error.commandLineReport)")
            Output.exit(Self.signInNeeded)
        }
    }

    /// The fresh tokens, or the reason only a new sign-in can give them; other failures are thrown.
    static func tokens(
        stateFile: String?, account: String?, environment: [String: String], secret: String?,
        clientKey: String?, timeout: Int, minimum: Int,
        logger: Logger
    ) async throws -> Result<TokenResponse, ExternalUserAgentError> {
        do {
            let choice = try await SavedStateChoice.choose(
                stateFile: stateFile, account: account, environment: environment)
            let state = try AuthState.loadUsingRegistration(
                from: choice.file, registrationHome: choice.registrationHome,
                clientSecret: secret, clientKeyPath: clientKey,
                http: OAuthHTTP().ending(after: .seconds(timeout)),
                logger: logger)
            do {
                return .success(try await state.freshTokens(minimumValidity: .seconds(minimum)))
            } catch let error as ExternalUserAgentError {
                guard await state.authorizationError != nil else { throw error }
                return .failure(
                    ExternalUserAgentError(
                        .notAuthorized, error.message, underlying: error.underlying,
                        remedies: error.remedies))
            }
        } catch let error as ExternalUserAgentError where error.code == .notAuthorized {
            return .failure(error)
        }
    }
}

/// What `eua token --json` prints.
struct TokenJSON: Encodable {
    var access_token: String
    var token_type: String
    var expires_at: String?

    init(_ tokens: TokenResponse) {
        access_token = tokens.accessToken
        token_type = tokens.tokenType
        expires_at = tokens.accessTokenExpirationDate?.formatted(.iso8601)
    }

    func jsonText() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
