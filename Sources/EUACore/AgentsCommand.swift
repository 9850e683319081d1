import ArgumentParser
import EUACommandSupport
import ExternalUserAgent
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `eua agents`: every loaded agent and receiver, and every plugin that was refused.
struct AgentsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agents",
        abstract: "List the user agents and redirect receivers the plugins offer, and plugins that failed to load.",
        discussion: "Exits 0 even when some plugins are refused; they are listed under errors with the reason."
    )

    @Flag(help: "Print one JSON object: {\"agents\":[…],\"receivers\":[…],\"errors\":[{\"path\",\"error\"}]}.")
    var json = false

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
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

/// The `eua agents` output; its JSON keys are a contract other tools read.
struct AgentListing: Encodable {
    struct Agent: Encodable {
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

        enum CodingKeys: String, CodingKey { case id, kind, family, name, version, path, plugin, available, reasons }

        /// Every key is always present (`version` and `path` as null when unknown, `family` the id when the
        /// agent has no other): other tools read them.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(kind, forKey: .kind)
            try container.encode(family, forKey: .family)
            try container.encode(name, forKey: .name)
            try container.encode(version, forKey: .version)
            try container.encode(path, forKey: .path)
            try container.encode(plugin, forKey: .plugin)
            try container.encode(available, forKey: .available)
            try container.encode(reasons, forKey: .reasons)
        }
    }

    struct Receiver: Encodable {
        var id: String
        var name: String
        var path: String
        var plugin: String
        var available: Bool
        var reasons: [String]
    }

    struct Failure: Encodable {
        var path: String
        var error: String
        var code: String
    }

    var agents: [Agent]
    var receivers: [Receiver]
    var errors: [Failure]

    init(_ catalog: PluginCatalog) {
        agents = catalog.agents.map {
            Agent(id: $0.descriptor.id, kind: $0.descriptor.kind.rawValue, family: $0.descriptor.family ?? $0.descriptor.id,
                  name: $0.descriptor.name,
                  version: $0.descriptor.version, path: $0.descriptor.path, plugin: $0.plugin.description.id,
                  available: $0.available, reasons: $0.reasons)
        }
        receivers = catalog.receivers.map {
            Receiver(id: $0.id, name: $0.name, path: $0.plugin.path, plugin: $0.plugin.description.id,
                     available: $0.available, reasons: $0.reasons)
        }
        errors = catalog.failures.map { Failure(path: $0.path, error: $0.error.message, code: $0.error.code.description) }
    }

    func jsonText() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// The lines of the table form (printed escaped by ``Output/lines(_:)``).
    func table() -> [String] {
        var lines: [String] = []
        if agents.isEmpty {
            lines.append("No agents. Build the plugins (swift build) or set EUA_PLUGIN_PATH.")
        } else {
            lines += TextTable.render(
                header: ["ID", "KIND", "VERSION", "AVAILABLE", "PATH"],
                rows: agents.map { [$0.id, $0.kind, $0.version ?? "-", $0.available ? "yes" : "no", $0.path ?? "(in code)"] })
        }
        if !receivers.isEmpty {
            lines.append("")
            lines += TextTable.render(
                header: ["RECEIVER", "AVAILABLE", "PATH"],
                rows: receivers.map { [$0.id, $0.available ? "yes" : "no", $0.path] })
        }
        let unavailable = agents.filter { !$0.available }.map { ($0.id, $0.reasons) }
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
