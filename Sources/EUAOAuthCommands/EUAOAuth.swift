import ArgumentParser
import EUACommandSupport

/// `eua-oauth`: the `eua` subcommands that need the OAuth client — `eua explain`, `eua login`,
/// `eua refresh` and the other OAuth commands become this program (see `OAuthCommands`); it names itself `eua` in help.
@main
struct EUAOAuth: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eua",
        abstract: "Sign in with OAuth 2.0 / OpenID Connect through an external user agent (RFC 8252).",
        discussion: """
            This is eua-oauth, which runs 'eua explain', 'eua login', 'eua refresh', 'eua doctor', \
            'eua userinfo', 'eua register', 'eua logout', 'eua accounts' and 'eua token'; 'eua --help' lists every command. Set EUA_LOG_LEVEL (trace, debug, \
            info, notice, warning, error) to see more on stderr.
            """,
        version: EUAVersion.current,
        subcommands: [ExplainCommand.self, LoginCommand.self, RefreshCommand.self, DoctorCommand.self,
                      UserInfoCommand.self, RegisterCommand.self, LogoutCommand.self,
                      AccountsCommand.self, TokenCommand.self]
    )
}
