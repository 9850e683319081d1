// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import CExternalUserAgentPlugin
import ExternalUserAgentPluginKit

/// The plugin's entry symbol.
@_cdecl("eua_plugin_entry_v1")
public func euaPluginEntry(_ host: UnsafePointer<eua_host_table>?) -> UnsafePointer<eua_plugin_table>? {
    GLibLogRouting.install()
    return PluginExport.table(for: SystemBrowserPlugin.self, host: host)
}

/// The user's default browser, opened the way the desktop opens links: GIO's app launching.
enum SystemBrowserPlugin: ExternalUserAgentPlugin {
    static let version = "1.0.0"

    static func describe() -> PluginABI.PluginDescription {
        let probe = BrowserProbe.run()
        return PluginABI.PluginDescription(
            id: "system-browser", name: "System browser (GIO)", version: version,
            agents: [
                PluginABI.Component(
                    id: "system-browser", kind: "externalBrowser", name: probe.name, version: nil,
                    available: probe.reasons.isEmpty, reasons: probe.reasons, details: probe.details)
            ])
    }

    static func makeInstance(componentID: String, options: [String: String]) throws -> any PluginComponent {
        guard componentID == "system-browser" else {
            throw PluginError.invalidOptions("this plugin offers only the agent 'system-browser', not '\(componentID)'")
        }
        if let unknown = options.keys.sorted().first {
            throw PluginError.invalidOptions(
                "option '\(unknown)' is unknown to the system browser agent, which takes none "
                    + "(to pick a browser, use the firefox or chromium agents, or set $BROWSER)")
        }
        return SystemBrowserAgent()
    }
}
