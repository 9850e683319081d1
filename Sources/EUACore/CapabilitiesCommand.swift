import ArgumentParser
import EUACommandSupport
import ExternalUserAgent
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `eua capabilities`: what each agent can do on this machine, and the platform facts behind it.
struct CapabilitiesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capabilities",
        abstract: "Report the platform (display, SSH, sandbox, WSL, container, loopback, browsers) and which agents can run.",
        discussion: "JSON: {\"platform\":{…},\"agents\":[{\"id\",\"kind\",\"available\",\"reasons\",…}],\"receivers\":[…]}."
    )

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        CommandLogging.bootstrap(environment: environment)
        let catalog = CommandCatalog.loader(environment: environment).load()
        let report = CapabilityReport(catalog: catalog, facts: .gather(environment: environment))
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            Output.json(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            Output.lines(Self.table(report))
        }
    }

    /// The lines of the table form (printed escaped by ``Output/lines(_:)``).
    static func table(_ report: CapabilityReport) -> [String] {
        let facts = report.platform.facts
        func yesNo(_ value: Bool?) -> String { value.map { $0 ? "yes" : "no" } ?? "unknown" }
        var browser = "none"
        if case .object(let handler)? = report.platform.defaultBrowser {
            browser = "\(handler["name"]?.stringValue ?? "?") (\(handler["id"]?.stringValue ?? "?"))"
        }
        var lines = TextTable.render(header: ["PLATFORM", ""], rows: [
            ["display", facts.display],
            ["ssh session", yesNo(facts.ssh)],
            ["sandbox", facts.sandbox.map { "\($0) (links go through the OpenURI portal)" } ?? "none"],
            ["wsl", yesNo(facts.wsl)],
            ["container", facts.container ?? "none"],
            ["loopback", "IPv4 \(yesNo(report.platform.ipv4Loopback)), IPv6 \(yesNo(report.platform.ipv6Loopback))"],
            ["default browser", browser],
            ["https handlers", String(report.platform.installedBrowsers.count)],
        ])
        lines.append("")
        let entries = report.agents + report.receivers
        lines += TextTable.render(
            header: ["AGENT", "KIND", "AVAILABLE", "WHY NOT"],
            rows: entries.map { [$0.id, $0.kind, $0.available ? "yes" : "no", $0.available ? "" : $0.reasons.joined(separator: "; ")] })
        return lines
    }
}
