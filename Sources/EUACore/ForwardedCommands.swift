import ArgumentParser
import EUACommandSupport

// The commands `eua-oauth` runs, listed here so `eua --help` shows them. `EUA.main` hands their
// arguments to `eua-oauth` before parsing, so these `run()`s are reached only if that did not happen.

struct ExplainForward: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: OAuthCommands.explain.0,
                                                    abstract: OAuthCommands.explain.1)
    @Argument(parsing: .allUnrecognized) var arguments: [String] = []
    func run() { OAuthCommands.forwardIfNeeded(CommandLine.arguments) }
}

struct LoginForward: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: OAuthCommands.login.0, abstract: OAuthCommands.login.1)
    @Argument(parsing: .allUnrecognized) var arguments: [String] = []
    func run() { OAuthCommands.forwardIfNeeded(CommandLine.arguments) }
}

struct RefreshForward: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: OAuthCommands.refresh.0,
                                                    abstract: OAuthCommands.refresh.1)
    @Argument(parsing: .allUnrecognized) var arguments: [String] = []
    func run() { OAuthCommands.forwardIfNeeded(CommandLine.arguments) }
}

struct DemoForward: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: OAuthCommands.demo.0, abstract: OAuthCommands.demo.1)
    @Argument(parsing: .allUnrecognized) var arguments: [String] = []
    func run() { OAuthCommands.forwardIfNeeded(CommandLine.arguments) }
}

struct DoctorForward: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: OAuthCommands.doctor.0, abstract: OAuthCommands.doctor.1)
    @Argument(parsing: .allUnrecognized) var arguments: [String] = []
    func run() { OAuthCommands.forwardIfNeeded(CommandLine.arguments) }
}

struct UserInfoForward: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: OAuthCommands.userinfo.0,
                                                    abstract: OAuthCommands.userinfo.1)
    @Argument(parsing: .allUnrecognized) var arguments: [String] = []
    func run() { OAuthCommands.forwardIfNeeded(CommandLine.arguments) }
}

struct RegisterForward: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: OAuthCommands.register.0,
                                                    abstract: OAuthCommands.register.1)
    @Argument(parsing: .allUnrecognized) var arguments: [String] = []
    func run() { OAuthCommands.forwardIfNeeded(CommandLine.arguments) }
}

struct LogoutForward: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: OAuthCommands.logout.0,
                                                    abstract: OAuthCommands.logout.1)
    @Argument(parsing: .allUnrecognized) var arguments: [String] = []
    func run() { OAuthCommands.forwardIfNeeded(CommandLine.arguments) }
}

struct AccountsForward: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: OAuthCommands.accounts.0,
                                                    abstract: OAuthCommands.accounts.1)
    @Argument(parsing: .allUnrecognized) var arguments: [String] = []
    func run() { OAuthCommands.forwardIfNeeded(CommandLine.arguments) }
}

struct TokenForward: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: OAuthCommands.token.0, abstract: OAuthCommands.token.1)
    @Argument(parsing: .allUnrecognized) var arguments: [String] = []
    func run() { OAuthCommands.forwardIfNeeded(CommandLine.arguments) }
}
