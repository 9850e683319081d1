import ArgumentParser
import EUACommandSupport

/// `eua demo`, listed here so `eua --help` shows it: `EUA.main` hands its arguments to `eua-demo` before parsing
/// (``OAuthCommands/forwardIfNeeded(_:)``), so this `run()` is reached only if that did not happen.
package struct DemoForward: ParsableCommand {
    package static let configuration = CommandConfiguration(commandName: OAuthCommands.demo.0,
                                                            abstract: OAuthCommands.demo.1)
    @Argument(parsing: .allUnrecognized) var arguments: [String] = []
    package init() {}
    package func run() { OAuthCommands.forwardIfNeeded(CommandLine.arguments) }
}
