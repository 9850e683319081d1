import ArgumentParser
import EUACommandSupport

/// `eua-core`: run and inspect OAuth sign-in through external user agents (it names itself `eua`).
///
/// The `eua` launcher (Sources/eua/main.c) starts this program for `agents`, `capabilities`, `open`,
/// `receive` and help, and `eua-oauth` for `explain`, `login`, `refresh` and `demo`; run directly, this
/// program hands those four to `eua-oauth` itself (see ``OAuthCommands``).
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
            AgentsCommand.self, CapabilitiesCommand.self, ExplainForward.self, OpenCommand.self, ReceiveCommand.self, SchemeCommand.self,
            LoginForward.self, RefreshForward.self, DemoForward.self, DoctorForward.self, UserInfoForward.self,
            RegisterForward.self, LogoutForward.self, AccountsForward.self, TokenForward.self,
        ]
    )

    static func main() {
        OAuthCommands.forwardIfNeeded(CommandLine.arguments)
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            if exitCode(for: error) == .validationFailure, CommandLine.arguments.dropFirst().first == "receive" {
                // `eua receive`'s contract (README): bad usage exits 2, like a port that is taken.
                Output.errorLine(fullMessage(for: error))
                Output.exit(2)
            }
            exit(withError: error)
        }
    }
}
