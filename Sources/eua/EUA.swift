import ArgumentParser
import EUACommandSupport

/// `eua`: run and inspect OAuth sign-in through external user agents.
///
/// `agents`, `capabilities`, `open` and `receive` run here; `explain`, `login`, `refresh` and `demo` run in
/// `eua-oauth` beside it (see ``OAuthCommands``), which this program becomes for them.
@main
struct EUA: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eua",
        abstract: "Sign in with OAuth 2.0 / OpenID Connect through an external user agent (RFC 8252).",
        discussion: """
            Agents and redirect receivers are plugins, searched for in the folder of this program, \
            then in EUA_PLUGIN_PATH (a colon-separated list), then in <prefix>/lib/eua/plugins. \
            Set EUA_LOG_LEVEL (trace, debug, info, notice, warning, error) to see more on stderr.
            """,
        subcommands: [
            AgentsCommand.self, CapabilitiesCommand.self, ExplainForward.self, OpenCommand.self, ReceiveCommand.self,
            LoginForward.self, RefreshForward.self, DemoForward.self,
        ]
    )

    static func main() {
        OAuthCommands.forwardIfNeeded(CommandLine.arguments)
        main(nil)
    }
}
