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

/// `eua userinfo`: the UserInfo claims of the person a saved state signed in (OpenID Connect Core §5.3).
package struct UserInfoCommand: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "userinfo",
        abstract: "Show the claims the provider's UserInfo endpoint gives for a state saved by 'eua login'.",
        discussion: """
            Uses the saved access token (refreshed first when it expires within a minute, and saved again) as a \
            bearer token. The answer's 'sub' must be the ID token's, or nothing is shown. A signed answer \
            (application/jwt) is checked like an ID token. Claims held elsewhere (_claim_names, _claim_sources) \
            are listed by name, not fetched. A confidential client needs its secret again for a refresh \
            (--client-secret or EUA_CLIENT_SECRET).
            """
    )

    @Option(help: "The saved state file (default: the account --account names, see 'eua accounts').")
    var stateFile: String?

    @Option(
        help: ArgumentHelp(
            "The signed-in account: an id, subject, email or username as 'eua accounts' lists, or the start of one (default: the only account).",
            valueName: "account"))
    var account: String?

    @Option(help: "The client secret, for a confidential client (default: $EUA_CLIENT_SECRET).")
    var clientSecret: String?

    @Option(
        help: ArgumentHelp(
            "The client's private key file, for a client that authenticates with private_key_jwt.", valueName: "file"))
    var clientKey: String?

    @Flag(
        help:
            "Send the access token in the form body of a POST (for a provider that asks), not the Authorization header."
    )
    var tokenInBody = false

    @Flag(
        help: "Print every claim as one JSON object (claims held elsewhere with their sources, which may hold tokens).")
    var json = false

    package func validate() throws {
        if stateFile != nil, account != nil { throw ValidationError(SavedStateChoice.conflict) }
    }

    package func run() throws {
        let environment = ProcessEnvironment.current()
        CommandLogging.bootstrap(environment: environment)
        let logger = Logger(label: "eua.userinfo")
        let secret = clientSecret ?? environment["EUA_CLIENT_SECRET"].flatMap { $0.isEmpty ? nil : $0 }
        let placement: UserInfoEndpoint.TokenPlacement = tokenInBody ? .formBody : .authorizationHeader
        let userInfo = try Blocking.run {
            try await CommandFailure.reporting {
                let choice = try await SavedStateChoice.choose(
                    stateFile: stateFile, account: account, environment: environment)
                let state = try AuthState.loadUsingRegistration(
                    from: choice.file, registrationHome: choice.registrationHome,
                    clientSecret: secret, clientKeyPath: clientKey,
                    logger: logger)
                return try await state.userInfo(placement: placement, logger: logger)
            }
        }
        if json {
            Output.json(JSONValue.object(userInfo.claims).jsonText)
            return
        }
        Output.line("sub: \(userInfo.subject)\(userInfo.isSigned ? " (signed response, checked)" : "")")
        let hidden: Set<String> = ["sub", "_claim_names", "_claim_sources"]
        for name in userInfo.claims.keys.sorted() where !hidden.contains(name) {
            Output.line("\(name): \(Self.text(userInfo.claims[name]!))")
        }
        for name in userInfo.claimNames.keys.sorted() {
            let source = userInfo.claimNames[name]!
            let place =
                switch userInfo.claimSources[source] {
                case .aggregated?: "in a signed JWT of source '\(source)' (aggregated)"
                case .distributed(let endpoint, _)?: "at \(endpoint.absoluteString) (distributed, source '\(source)')"
                case nil: "at source '\(source)'"
                }
            Output.line("\(name): held elsewhere, \(place)")
        }
    }

    /// A claim's value on one line: a string as it is, anything else as JSON.
    static func text(_ value: JSONValue) -> String {
        if case .string(let text) = value { return text }
        return value.jsonText
    }
}
