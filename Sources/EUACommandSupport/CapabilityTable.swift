// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore

/// The plain-text form of a ``CapabilityReport``, shared by `eua capabilities` and `eua doctor`.
package enum CapabilityTable {
    /// The lines of the table form (printed escaped by ``Output/lines(_:)``).
    package static func lines(_ report: CapabilityReport) -> [String] {
        let facts = report.platform.facts
        func yesNo(_ value: Bool?) -> String { value.map { $0 ? "yes" : "no" } ?? "unknown" }
        var browser = "none"
        if case .object(let handler)? = report.platform.defaultBrowser {
            browser = "\(handler["name"]?.stringValue ?? "?") (\(handler["id"]?.stringValue ?? "?"))"
        }
        var lines = TextTable.render(
            header: ["PLATFORM", ""],
            rows: [
                ["display", facts.display],
                ["ssh session", yesNo(facts.ssh)],
                ["sandbox", facts.sandbox.map { "\($0) (links go through the OpenURI portal)" } ?? "none"],
                ["wsl", yesNo(facts.wsl)],
                ["container", facts.container ?? "none"],
                [
                    "loopback",
                    "IPv4 \(yesNo(report.platform.ipv4Loopback)), IPv6 \(yesNo(report.platform.ipv6Loopback))",
                ],
                ["default browser", browser],
                ["https handlers", String(report.platform.installedBrowsers.count)],
                ["scheme handlers", schemes(report)],
            ])
        lines.append("")
        let entries = report.agents + report.receivers
        lines += TextTable.render(
            header: ["AGENT", "KIND", "AVAILABLE", "WHY NOT"],
            rows: entries.map {
                [$0.id, $0.kind, $0.available ? "yes" : "no", $0.available ? "" : $0.reasons.joined(separator: "; ")]
            })
        return lines
    }

    /// The schemes `eua scheme register` made entries for, from the `scheme` receiver's details, and their owners.
    private static func schemes(_ report: CapabilityReport) -> String {
        guard case .array(let list)? = report.receivers.first(where: { $0.id == "scheme" })?.details["schemes"],
            !list.isEmpty
        else {
            return "none registered (eua scheme register <scheme>)"
        }
        return list.compactMap { value -> String? in
            guard case .object(let entry) = value, let scheme = entry["scheme"]?.stringValue else { return nil }
            if case .bool(true)? = entry["registered"] { return "\(scheme) (registered)" }
            return "\(scheme) (opened by \(entry["default"]?.stringValue ?? "no application"))"
        }.joined(separator: ", ")
    }
}
