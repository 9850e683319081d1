// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import CExternalUserAgentPlugin
import ExternalUserAgentPluginKit

/// The plugin's entry symbol.
@_cdecl("eua_plugin_entry_v1")
public func euaPluginEntry(_ host: UnsafePointer<eua_host_table>?) -> UnsafePointer<eua_plugin_table>? {
    PluginExport.table(for: LoopbackPlugin.self, host: host)
}

/// The loopback redirect receiver (RFC 8252 §7.3): a one-shot HTTP listener on 127.0.0.1 (and [::1]).
enum LoopbackPlugin: ExternalUserAgentPlugin {
    static let version = "1.0.0"

    static func describe() -> PluginABI.PluginDescription {
        let loopback = LoopbackAvailability.probe()
        return PluginABI.PluginDescription(
            id: "loopback", name: "Loopback redirect receiver", version: version,
            receivers: [
                PluginABI.Component(
                    id: "loopback", name: "Loopback HTTP redirect receiver (127.0.0.1 / [::1])", version: version,
                    available: loopback.ipv4 || loopback.ipv6, reasons: loopback.reasons,
                    details: ["ipv4": .bool(loopback.ipv4), "ipv6": .bool(loopback.ipv6)])
            ])
    }

    static func makeInstance(componentID: String, options: [String: String]) throws -> any PluginComponent {
        guard componentID == "loopback" else {
            throw PluginError.invalidOptions("this plugin offers only the receiver 'loopback', not '\(componentID)'")
        }
        return LoopbackReceiver(options: try LoopbackOptions(options: options))
    }
}
