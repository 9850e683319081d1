// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore
import ExternalUserAgentOAuth

/// How the command line spells the remedies that the libraries' errors name: the one table that turns "give the
/// client secret" into the flags and variables that give it. The libraries' messages name no flag (an app or the
/// sign-in service shows them too); a command appends these spellings when it prints an error.
package enum CommandHints {
    /// Each remedy in the command line's words. A remedy missing here is printed with its message only.
    static let spellings: [ExternalUserAgentError.Remedy: String] = [
        .seeDebugLog: "EUA_LOG_LEVEL=debug shows the log lines",
        .allowMoreTime: "--timeout",
        .chooseAgent: "--agent",
        .listAgents: "'eua agents' lists the agents",
        .explainSelection: "'eua explain --issuer URL' shows every setting and candidate",
        .giveClientSecret: "--client-secret-file PATH or EUA_CLIENT_SECRET",
        .giveClientKey: "--client-key FILE",
        .giveClientID: "--client-id",
        .giveIssuer: "--issuer",
        .giveRedirectURI: "--redirect-uri",
        .giveIDTokenAlgorithm: "--id-token-alg",
        .registerClient: "'eua register'",
        .signIn: "'eua login'",
        .refreshTokens: "'eua refresh'",
        .chooseAccount: "--account",
        .useCodeFlow: "--flow browser or --flow manual",
        .useDeviceFlow: "--flow device",
        .withoutDPoP: "leave out --dpop",
        .allowPushedRequests: "leave out --no-par",
    ]

    /// The command line's spelling of `error`'s remedies (its own and its causes'), or `nil` when it has none.
    package static func hint(for error: ExternalUserAgentError) -> String? {
        let spelled = error.allRemedies.compactMap { spellings[$0] }
        return spelled.isEmpty ? nil : spelled.joined(separator: "; ")
    }
}

extension ExternalUserAgentError {
    /// The message with the command line's spelling of its remedies: `… give it (--client-key FILE)`.
    package var commandLineMessage: String {
        CommandHints.hint(for: self).map { "\(message) (\($0))" } ?? message
    }

    /// ``commandLineMessage`` and the code, as commands print a failure: `… (--client-key FILE) [invalidOptions]`.
    package var commandLineReport: String { "\(commandLineMessage) [\(code)]" }
}
