// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import CExternalUserAgentPlugin
import ExternalUserAgentPluginKit

/// The plugin's entry symbol.
@_cdecl("eua_plugin_entry_v1")
public func euaPluginEntry(_ host: UnsafePointer<eua_host_table>?) -> UnsafePointer<eua_plugin_table>? {
    PluginExport.table(for: ManualPlugin.self, host: host)
}

/// The manual agent: shows the URL to the person (on stderr) with what to do next, and accepts the
/// final URL pasted on standard input when the redirect cannot reach this machine.
enum ManualPlugin: ExternalUserAgentPlugin {
    static func describe() -> PluginABI.PluginDescription {
        PluginABI.PluginDescription(
            id: "manual", name: "Manual agent", version: "1.0.0",
            agents: [
                PluginABI.Component(
                    id: "manual", kind: "manual", name: "Manual: open the URL yourself (paste the result if needed)",
                    version: "1.0.0")
            ])
    }

    static func makeInstance(componentID: String, options: [String: String]) throws -> any PluginComponent {
        guard componentID == "manual" else {
            throw PluginError.invalidOptions("this plugin offers only the agent 'manual', not '\(componentID)'")
        }
        return ManualAgent(options: try ManualOptions(options: options))
    }
}
