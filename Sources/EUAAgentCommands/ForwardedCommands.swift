// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ArgumentParser
import EUACommandSupport

/// `eua demo`, listed here so `eua --help` shows it: `EUA.main` hands its arguments to `eua-demo` before parsing
/// (``DemoProgram/forwardIfNeeded(_:)``), so this `run()` is reached only if that did not happen.
package struct DemoForward: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: DemoProgram.command.0,
        abstract: DemoProgram.command.1)
    @Argument(parsing: .allUnrecognized) var arguments: [String] = []
    package init() {}
    package func run() { DemoProgram.forwardIfNeeded(CommandLine.arguments) }
}
