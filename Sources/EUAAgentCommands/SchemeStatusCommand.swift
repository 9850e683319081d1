// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ArgumentParser
import EUACommandSupport
import ExternalUserAgentSystem
import ExternalUserAgentRules
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `eua scheme status`: the schemes eua registered (or the ones named) and who the desktop hands them to.
struct SchemeStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the private-use schemes eua registered and which application the desktop opens them with."
    )

    @Argument(help: "Schemes to report (default: every eua-scheme-*.desktop entry).")
    var schemes: [String] = []

    @Flag(help: "One JSON object: {\"schemes\":[{\"scheme\",\"desktopEntry\",\"registered\",\"default\"}]}.")
    var json = false

    func validate() throws {
        for scheme in schemes { _ = try SchemeCommand.checked(scheme) }
    }

    func run() throws {
        let environment = ProcessEnvironment.current()
        do {
            let facts = try SchemeStatus.collect(schemes: schemes.isEmpty ? nil : schemes, environment: environment)
            if json {
                Output.json(SchemeStatus.json(facts))
            } else if facts.isEmpty {
                Output.line("no private-use scheme is registered by eua (eua scheme register <scheme>)")
            } else {
                Output.lines(facts.map(\.line))
            }
        } catch {
            SchemeCommand.fail("status", "\(error)")
        }
    }
}
