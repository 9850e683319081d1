// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import CGIO
import ExternalUserAgentPluginKit
import ExternalUserAgentSystem
import FoundationEssentials

/// What this machine offers for opening an https link: GIO's default handler for
/// `x-scheme-handler/https`, else `$BROWSER`; plus every installed handler, for the capability report.
struct BrowserProbe {
    var name: String
    var reasons: [String]
    var details: [String: JSONValue]

    static func run(environment: [String: String] = ProcessEnvironment.current()) -> BrowserProbe {
        var details: [String: JSONValue] = [:]
        let sandbox = Sandbox.current(environment: environment)
        let handler = defaultHandler()
        if let handler {
            details["handler"] = .object(["id": .string(handler.id), "name": .string(handler.name)])
        }
        details["browsers"] = .array(
            installedHandlers().map { .object(["id": .string($0.id), "name": .string($0.name)]) })
        let browserVariable = BrowserVariable(environment["BROWSER"])
        if let browserVariable {
            details["browser_variable"] = .array(browserVariable.commands.map { .string($0.joined(separator: " ")) })
        }
        if let sandbox { details["portal"] = .string("org.freedesktop.portal.OpenURI (\(sandbox.rawValue))") }

        var reasons: [String] = []
        let name: String
        if let handler {
            name = "System browser: \(handler.name) (\(handler.id))"
        } else if browserVariable != nil {
            name = "System browser: $BROWSER"
        } else if sandbox != nil {
            name = "System browser (through the \(sandbox!.rawValue) portal)"
        } else {
            name = "System browser"
            reasons.append(
                "no default handler for https links (x-scheme-handler/https) and $BROWSER is not set: "
                    + "set one with 'xdg-settings set default-web-browser firefox-esr.desktop' or set $BROWSER")
        }
        let hasDisplay = !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
        if handler != nil, browserVariable == nil, sandbox == nil, !hasDisplay {
            reasons.append(
                "no display (neither DISPLAY nor WAYLAND_DISPLAY is set), and the default browser is graphical; "
                    + "over SSH or in CI use the manual agent or the device flow")
        }
        return BrowserProbe(name: name, reasons: reasons, details: details)
    }

    struct Handler {
        var id: String
        var name: String
    }

    /// GIO's default handler for https links, or nil.
    static func defaultHandler() -> Handler? {
        guard let info = g_app_info_get_default_for_uri_scheme("https") else { return nil }
        defer { eua_object_unref(UnsafeMutableRawPointer(info)) }
        return handler(info)
    }

    /// Every app GIO knows that opens https links.
    static func installedHandlers() -> [Handler] {
        var handlers: [Handler] = []
        var node = g_app_info_get_all_for_type("x-scheme-handler/https")
        let list = node
        while let current = node {
            if let info = current.pointee.data {
                handlers.append(handler(OpaquePointer(info)))
            }
            node = current.pointee.next
        }
        g_list_free_full(list) { eua_object_unref($0) }
        return handlers
    }

    private static func handler(_ info: OpaquePointer) -> Handler {
        let id = g_app_info_get_id(info).map { String(cString: $0) } ?? "(no id)"
        let name = g_app_info_get_display_name(info).map { String(cString: $0) } ?? id
        return Handler(id: id, name: name)
    }
}
