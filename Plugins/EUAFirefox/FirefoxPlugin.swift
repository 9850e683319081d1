// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import BrowserAgentSupport
import CExternalUserAgentPlugin
import ExternalUserAgentPluginKit

/// The plugin's entry symbol.
@_cdecl("eua_plugin_entry_v1")
public func euaPluginEntry(_ host: UnsafePointer<eua_host_table>?) -> UnsafePointer<eua_plugin_table>? {
    PluginExport.table(for: FirefoxPlugin.self, host: host)
}

/// Firefox and Firefox ESR, one agent per installed browser.
enum FirefoxPlugin: ExternalUserAgentPlugin {
    static func describe() -> PluginABI.PluginDescription {
        PluginABI.PluginDescription(
            id: "firefox", name: "Firefox agents", version: "1.0.0",
            agents: BrowserPluginDescription.components(for: BrowserDiscovery.find(BrowserFamily.firefox)))
    }

    static func makeInstance(componentID: String, options: [String: String]) throws -> any PluginComponent {
        try BrowserPluginDescription.makeAgent(
            componentID: componentID, options: options, families: BrowserFamily.firefox)
    }
}
