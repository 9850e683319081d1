// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import CExternalUserAgentPlugin
import ExternalUserAgentPluginKit

/// The plugin's entry symbol: the one thing a host looks up.
@_cdecl("eua_plugin_entry_v1")
public func euaPluginEntry(_ host: UnsafePointer<eua_host_table>?) -> UnsafePointer<eua_plugin_table>? {
    PluginExport.table(for: HeadlessPlugin.self, host: host)
}

/// The headless test agent: a scripted user agent for test suites and CI, with no browser.
enum HeadlessPlugin: ExternalUserAgentPlugin {
    static let version = "1.0.0"

    static func describe() -> PluginABI.PluginDescription {
        PluginABI.PluginDescription(
            id: "headless", name: "Headless test agent", version: version,
            agents: [
                PluginABI.Component(
                    id: "headless", kind: "testDouble", name: "Headless test agent (scripted, no browser)",
                    version: version)
            ])
    }

    static func makeInstance(componentID: String, options: [String: String]) throws -> any PluginComponent {
        guard componentID == "headless" else {
            throw PluginError.invalidOptions("this plugin offers only the agent 'headless', not '\(componentID)'")
        }
        return HeadlessAgent(script: try HeadlessScript(options: options))
    }
}
