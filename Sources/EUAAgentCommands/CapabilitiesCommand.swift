// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ArgumentParser
import EUACommandSupport
import ExternalUserAgentCore
import ExternalUserAgentSystem
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `eua capabilities`: what each agent can do on this machine, and the platform facts behind it.
package struct CapabilitiesCommand: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "capabilities",
        abstract:
            "Report the platform (display, SSH, sandbox, WSL, container, loopback, browsers) and which agents can run.",
        discussion:
            "JSON: {\"platform\":{…},\"agents\":[{\"id\",\"kind\",\"available\",\"reasons\",…}],\"receivers\":[…]}."
    )

    @Flag(help: "Print one JSON object.")
    var json = false

    package func run() throws {
        let environment = ProcessEnvironment.current()
        CommandLogging.bootstrap(environment: environment)
        let catalog = CommandCatalog.loader(environment: environment).load()
        let report = CapabilityReport(catalog: catalog, facts: .gather(environment: environment))
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            Output.json(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            Output.lines(CapabilityTable.lines(report))
        }
    }
}
