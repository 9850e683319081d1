// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ArgumentParser
import EUACommandSupport
import EUAAgentCommands
import EUAOAuthCommands

/// `eua`: run and inspect OAuth sign-in through external user agents — every command in one program, but `demo`,
/// which `eua-demo` beside it runs (the testing kit's local authorization server is not linked into what every
/// sign-in starts; see ``DemoProgram``).
///
/// One program since session 11: the C launcher that chose between `eua-core` and `eua-oauth` cost more than it
/// saved — a login's CPU −6 to −9 %, `eua agents` −6 to −12 %, peak RSS +1 and +1.8 MiB (Benchmarks/README.md,
/// "Session 11"). A release `eua` holds only its own commands; the Swift runtime and the code it shares with `eua-demo`
/// are one library beside it (scripts/link-runtime).
@main
struct EUA: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eua",
        abstract: "Sign in with OAuth 2.0 / OpenID Connect through an external user agent (RFC 8252).",
        discussion: """
            Agents and redirect receivers are plugins, searched for in the folder of this program, \
            then in EUA_PLUGIN_PATH (a colon-separated list), then in $XDG_DATA_HOME/eua/plugins, then in \
            eua/plugins under each folder of $XDG_DATA_DIRS, then in <prefix>/lib/eua/plugins. \
            Set EUA_LOG_LEVEL (trace, debug, info, notice, warning, error) to see more on stderr.
            """,
        version: EUAVersion.current,
        subcommands: [
            AgentsCommand.self, CapabilitiesCommand.self, ExplainCommand.self, OpenCommand.self, ReceiveCommand.self,
            SchemeCommand.self, LoginCommand.self, RefreshCommand.self, DemoForward.self, DoctorCommand.self,
            UserInfoCommand.self, RegisterCommand.self, LogoutCommand.self, AccountsCommand.self, TokenCommand.self,
        ]
    )

    static func main() {
        DemoProgram.forwardIfNeeded(CommandLine.arguments)
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            if exitCode(for: error) == .validationFailure, CommandLine.arguments.dropFirst().first == "receive" {
                // `eua receive`'s contract (docs/reference/exit-codes.md): bad usage exits 2, like a port that is taken.
                Output.errorLine(fullMessage(for: error))
                Output.exit(2)
            }
            exit(withError: error)
        }
    }
}
