// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif
import CExternalUserAgentPlugin
import ExternalUserAgentPluginKit
import ExternalUserAgentRules

/// The plugin's entry symbol.
@_cdecl("eua_plugin_entry_v1")
public func euaPluginEntry(_ host: UnsafePointer<eua_host_table>?) -> UnsafePointer<eua_plugin_table>? {
    PluginExport.table(for: SchemePlugin.self, host: host)
}

/// The private-use URI scheme redirect receiver (RFC 8252 §7.1): the desktop runs `eua scheme hand-off URL`
/// for the scheme (see `eua scheme register`), which passes the URL over a Unix socket in `$XDG_RUNTIME_DIR`.
enum SchemePlugin: ExternalUserAgentPlugin {
    static let version = "1.0.0"

    static func describe() -> PluginABI.PluginDescription {
        let runtime = getenv("XDG_RUNTIME_DIR").map { String(cString: $0) }
        let folder = PrivateUseScheme.socketFolder(runtimeDirectory: runtime)
        let sandbox = SandboxFacts.current()
        var reasons: [String] = []
        if folder == nil {
            reasons.append("XDG_RUNTIME_DIR is not set to an absolute path: there is no place for the hand-off socket")
        }
        var details: [String: JSONValue] = [
            "socketFolder": folder.map(JSONValue.string) ?? .null,
            "schemes": RegisteredSchemes.report(),
        ]
        details.merge(sandbox.details) { $1 }
        return PluginABI.PluginDescription(
            id: "scheme", name: "Private-use URI scheme redirect receiver", version: version,
            receivers: [
                PluginABI.Component(
                    id: "scheme", name: "Private-use URI scheme receiver (x-scheme-handler hand-off)", version: version,
                    available: folder != nil, reasons: reasons, details: details)
            ])
    }

    static func makeInstance(componentID: String, options: [String: String]) throws -> any PluginComponent {
        guard componentID == "scheme" else {
            throw PluginError.invalidOptions("this plugin offers only the receiver 'scheme', not '\(componentID)'")
        }
        return SchemeReceiver(options: try SchemeOptions(options: options))
    }
}
