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
import Logging

/// `eua open URL`: present a URL with an agent and exit once it is handed off — for scripts, and for
/// checking that a machine's browser set-up works.
package struct OpenCommand: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Open a URL with the agent the selection policy picks (or --agent) and exit once it is handed off.",
        discussion: """
            Exit status: 0 handed off, 1 the agent failed, 2 no agent could be chosen, 124 the agent did not \
            hand the URL off within --timeout (it is then told to cancel, and given timeouts.dismiss, default \
            5 s, to finish).
            """
    )

    @Argument(help: "The URL to open.")
    var url: String

    @Option(help: "The agent to use (see 'eua agents'); default: the one the selection policy picks ('eua explain').")
    var agent: String?

    @Option(name: .customLong("agent-option"), help: "An agent option, key=value (repeatable).")
    var agentOptions: [String] = []

    @Option(
        help:
            "Seconds the agent may take to hand the URL off (default: timeouts.present from the configuration, else 30)."
    )
    var timeout: Double?

    package func validate() throws {
        if let timeout, !(timeout > 0 && timeout <= OpenCommand.maximumTimeout) {
            throw ValidationError(
                "--timeout must be more than 0 and at most \(Int(OpenCommand.maximumTimeout)) seconds")
        }
    }

    /// The longest `--timeout` accepted: a day.
    static let maximumTimeout: Double = 86_400

    package func run() throws {
        let environment = ProcessEnvironment.current()
        CommandLogging.bootstrap(environment: environment)
        guard let target = URL(string: Self.uri(fromIRI: url)), target.scheme != nil else {
            throw ValidationError("'\(url)' is not an absolute URL")
        }
        let options = try AgentOptions.parse(agentOptions)
        var code = CodeConfiguration.commandLine
        if let agent {
            code.name(agent, options: options)
        }
        let sources = ConfigurationSources.standard(environment: environment)
        // A named agent needs only its own plugin, when the configuration cannot put another one first.
        var early: SelectedAgent?
        let (catalog, partial) = CommandCatalog.load(named: agent, environment: environment) { few in
            // Quiet: names of agents in files not loaded would read as unknown; the warnings are logged below.
            early = try? AgentSelection.select(
                catalog: few, code: code, sources: sources, logger: CommandLogging.silent)
            return CommandCatalog.decidesAlone(early, named: agent!)
        }
        let selected: SelectedAgent
        do {
            if partial, let early {
                selected = early
                for warning in early.report.allWarnings {
                    Logger(label: "ExternalUserAgent.selection").warning("\(warning)")
                }
            } else {
                selected = try AgentSelection.select(catalog: catalog, code: code, sources: sources)
            }
        } catch {
            Output.errorMessage("eua open: \(error.commandLineMessage)")
            Output.exit(2)
        }
        let configuration = selected.report.configuration
        let deadline =
            timeout.map { Duration.milliseconds(Int64(($0 * 1000).rounded())) }
            ?? configuration.presentTimeout ?? .seconds(30)
        let grace = configuration.dismissTimeout ?? .seconds(5)
        let chosen: any ExternalUserAgent
        if case .plugin(let entry) = selected.candidate.source {
            chosen = entry.makeAgent(options: selected.options, dismissGrace: grace)
        } else {
            chosen = selected.makeAgent()
        }
        let session = ExternalUserAgentSession(agent: chosen, receiver: HandOffOnly(redirectURI: target))
        do {
            try Blocking.run {
                do {
                    try await chosen.present(
                        AgentRequest(url: target, redirectURI: target, timeout: deadline),
                        session: session)
                } catch {
                    // Bounded: an agent that does not finish within the grace period is left be.
                    await chosen.dismiss()
                    throw error
                }
            }
        } catch {
            let failure = error as? ExternalUserAgentError
            Output.errorLine("eua open: \(failure?.commandLineMessage ?? "\(error)")")
            Output.exit(failure?.code == .timedOut ? 124 : 1)
        }
    }
}

extension OpenCommand {
    /// RFC 3987 §3.1: an IRI becomes a URI by percent-encoding the UTF-8 bytes of its non-ASCII
    /// characters; every ASCII byte (`%20`, `&`, `#` …) passes through unchanged.
    static func uri(fromIRI text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if byte < 0x80 {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true)
            }
        }
        return out
    }
}

/// `eua open` waits for no redirect: this receiver only names one.
struct HandOffOnly: RedirectReceiver {
    let id = "none"
    let redirectURI: URL
    func start(_ request: ReceiverRequest, session: ExternalUserAgentSession) async throws -> URL { redirectURI }
    func stop() async {}
}
