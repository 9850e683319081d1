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

/// `eua agents`: every loaded agent and receiver, and every plugin that was refused.
package struct AgentsCommand: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "agents",
        abstract: "List the user agents and redirect receivers the plugins offer, and plugins that failed to load.",
        discussion: "Exits 0 even when some plugins are refused; they are listed under errors with the reason."
    )

    @Flag(help: "Print one JSON object: {\"agents\":[…],\"receivers\":[…],\"errors\":[{\"path\",\"error\"}]}.")
    var json = false

    package func run() throws {
        let environment = ProcessEnvironment.current()
        CommandLogging.bootstrap(environment: environment)
        let catalog = CommandCatalog.loader(environment: environment).load()
        let listing = AgentListing(catalog)
        if json {
            Output.json(try listing.jsonText())
        } else {
            Output.lines(listing.table())
        }
    }
}

/// The `eua agents` output; its JSON keys are a contract other tools read. Every key is always present
/// (`version` and `path` as null when unknown, `family` the id when the agent has no other).
struct AgentListing {
    struct Agent {
        var id: String
        var kind: String
        /// The browser family configuration may name instead of the id (`firefox` for firefox-esr).
        var family: String
        var name: String
        var version: String?
        var path: String?
        var plugin: String
        var available: Bool
        var reasons: [String]
    }

    struct Receiver {
        var id: String
        var name: String
        var path: String
        var plugin: String
        var available: Bool
        var reasons: [String]
    }

    struct Failure {
        var path: String
        var error: String
        var code: String
    }

    var agents: [Agent]
    var receivers: [Receiver]
    var errors: [Failure]

    init(_ catalog: PluginCatalog) {
        agents = catalog.agents.map {
            Agent(
                id: $0.descriptor.id, kind: $0.descriptor.kind.rawValue,
                family: $0.descriptor.family ?? $0.descriptor.id,
                name: $0.descriptor.name,
                version: $0.descriptor.version, path: $0.descriptor.path, plugin: $0.plugin.description.id,
                available: $0.available, reasons: $0.reasons)
        }
        receivers = catalog.receivers.map {
            Receiver(
                id: $0.id, name: $0.name, path: $0.plugin.path, plugin: $0.plugin.description.id,
                available: $0.available, reasons: $0.reasons)
        }
        errors = catalog.failures.map {
            Failure(path: $0.path, error: $0.error.commandLineMessage, code: $0.error.code.description)
        }
    }

    /// The JSON text (keys sorted, slashes unescaped), written by hand (`JSONValue`): `JSONEncoder` cost this
    /// command its generic instantiations on every run (Benchmarks/README.md, "Levers").
    func jsonText() throws -> String {
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        func list(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }
        return JSONValue.object([
            "agents": .array(
                agents.map { agent in
                    .object([
                        "id": .string(agent.id), "kind": .string(agent.kind), "family": .string(agent.family),
                        "name": .string(agent.name), "version": text(agent.version), "path": text(agent.path),
                        "plugin": .string(agent.plugin), "available": .bool(agent.available),
                        "reasons": list(agent.reasons),
                    ])
                }),
            "receivers": .array(
                receivers.map { receiver in
                    .object([
                        "id": .string(receiver.id), "name": .string(receiver.name), "path": .string(receiver.path),
                        "plugin": .string(receiver.plugin), "available": .bool(receiver.available),
                        "reasons": list(receiver.reasons),
                    ])
                }),
            "errors": .array(
                errors.map { failure in
                    .object([
                        "path": .string(failure.path), "error": .string(failure.error), "code": .string(failure.code),
                    ])
                }),
        ]).jsonText
    }

    /// The lines of the table form (printed escaped by ``Output/lines(_:)``).
    func table() -> [String] {
        var lines: [String] = []
        if agents.isEmpty {
            lines.append("No agents. Build the plugins (swift build) or set EUA_PLUGIN_PATH.")
        } else {
            lines += TextTable.render(
                header: ["ID", "KIND", "VERSION", "AVAILABLE", "PATH"],
                rows: agents.map {
                    [$0.id, $0.kind, $0.version ?? "-", $0.available ? "yes" : "no", $0.path ?? "(in code)"]
                })
        }
        if !receivers.isEmpty {
            lines.append("")
            lines += TextTable.render(
                header: ["RECEIVER", "AVAILABLE", "PATH"],
                rows: receivers.map { [$0.id, $0.available ? "yes" : "no", $0.path] })
        }
        let unavailable =
            agents.filter { !$0.available }.map { ($0.id, $0.reasons) }
            + receivers.filter { !$0.available }.map { ($0.id, $0.reasons) }
        if !unavailable.isEmpty {
            lines.append("")
            lines.append("Not available here:")
            for (id, reasons) in unavailable {
                lines += reasons.map { "  \(id): \($0)" }
            }
        }
        if !errors.isEmpty {
            lines.append("")
            lines.append("Refused plugins:")
            lines += errors.map { "  \($0.path): \($0.error)" }
        }
        return lines
    }
}
