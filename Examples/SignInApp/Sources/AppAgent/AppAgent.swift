// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import CExternalUserAgentPlugin
import ExternalUserAgentPluginKit

/// An agent plugin written in Swift outside the ExternalUserAgent package: docs/guides/plugins.md's whole plugin,
/// compiled here. It "presents" a URL by answering at once with a redirect carrying a code and the request's state,
/// as a company's own single-sign-on helper might.
@_cdecl("eua_plugin_entry_v1")
public func euaPluginEntry(_ host: UnsafePointer<eua_host_table>?) -> UnsafePointer<eua_plugin_table>? {
    PluginExport.table(for: AppAgentPlugin.self, host: host)
}

enum AppAgentPlugin: ExternalUserAgentPlugin {
    static func describe() -> PluginABI.PluginDescription {
        PluginABI.PluginDescription(
            id: "app-agent", name: "The app's own agent", version: "1.0.0",
            agents: [PluginABI.Component(id: "app-agent", kind: "testDouble", name: "The app's own agent")])
    }

    static func makeInstance(componentID: String, options: [String: String]) throws -> any PluginComponent {
        guard componentID == "app-agent" else { throw PluginError.invalidOptions("no component '\(componentID)' here") }
        return AppAgent(code: options["code"] ?? "from-app-agent")
    }
}

final class AppAgent: PluginComponent {
    let code: String

    init(code: String) { self.code = code }

    func start(_ request: PluginStartRequest, events: PluginEvents) {
        do {
            let agentRequest = try request.agentRequest()
            guard let redirect = agentRequest.redirectURI else {
                events.failed(.invalidOptions, "no redirect URI in the request")
                return
            }
            let state = agentRequest.url.split(separator: "?").last?.split(separator: "&")
                .first { $0.hasPrefix("state=") }.map { String($0.dropFirst(6)) } ?? ""
            events.presented()
            events.redirect("\(redirect)?code=\(code)&state=\(state)")
            events.finished()
        } catch {
            events.failed(.invalidOptions, "the request could not be read: \(error)")
        }
    }

    func cancel() {}
}
