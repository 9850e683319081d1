import ArgumentParser
import Logging

/// `eua`: run and inspect OAuth sign-in through external user agents.
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
            AgentsCommand.self, CapabilitiesCommand.self, ExplainCommand.self, OpenCommand.self, ReceiveCommand.self,
            LoginCommand.self, RefreshCommand.self, DemoCommand.self,
        ]
    )
}

/// Logging for the command-line tool: stderr only (stdout is for results), level from EUA_LOG_LEVEL.
enum CommandLogging {
    static func bootstrap(environment: [String: String]) {
        let level = environment["EUA_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
