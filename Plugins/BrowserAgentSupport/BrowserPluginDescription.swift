// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentPluginKit
import ExternalUserAgentSystem
import FoundationEssentials

/// What a browser plugin offers here: one agent per installed browser of its family.
public enum BrowserPluginDescription {
    public static func components(
        for browsers: [InstalledBrowser],
        environment: [String: String]? = nil
    ) -> [PluginABI.Component] {
        let environment = environment ?? ProcessEnvironment.current()
        let hasDisplay = !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
        return browsers.map { browser in
            let label = "\(browser.family.id) \(browser.version ?? "(version unknown)")"
            var reasons: [String] = []
            if !hasDisplay {
                reasons.append(
                    "\(label): no display (neither DISPLAY nor WAYLAND_DISPLAY is set); only headless=true is possible")
            }
            return PluginABI.Component(
                id: browser.family.id, kind: "externalBrowser", family: browser.family.family,
                name: browser.family.name, version: browser.version,
                available: reasons.isEmpty, reasons: reasons,
                details: ["executable": .string(browser.executable), "found_in": .string(browser.foundIn)])
        }
    }

    /// The instance for `componentID`, or an error naming the ids on offer.
    public static func makeAgent(
        componentID: String, options: [String: String],
        families: [BrowserFamily]
    ) throws -> any PluginComponent {
        let parsed = try BrowserOptions(options: options)
        guard let family = families.first(where: { $0.id == componentID }) else {
            throw PluginError.invalidOptions(
                "no browser agent '\(componentID)' here; this plugin offers "
                    + families.map(\.id).joined(separator: ", "))
        }
        if let executable = parsed.executable {
            return BrowserAgent(
                browser: InstalledBrowser(
                    family: family, executable: executable, version: nil,
                    foundIn: "option executable"), options: parsed)
        }
        guard let browser = BrowserDiscovery.find([family]).first else {
            throw PluginError(
                .presentationFailed,
                "\(family.name) is not installed (looked for "
                    + family.executables.joined(separator: ", ")
                    + " on PATH and in desktop entries); install it or give "
                    + "executable=/path/to/it")
        }
        return BrowserAgent(browser: browser, options: parsed)
    }
}
