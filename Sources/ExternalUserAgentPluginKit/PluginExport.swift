// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import CExternalUserAgentPlugin
import Synchronization

/// Builds the C table that a Swift plugin returns from its entry symbol.
public enum PluginExport {
    private static let plugin = Mutex<PluginType?>(nil)

    /// The registered plugin type; types are immutable, so sharing one across threads is safe.
    private struct PluginType: @unchecked Sendable {
        let type: any ExternalUserAgentPlugin.Type
    }

    /// Registers `pluginType` and returns the table for the host. Call it from the function
    /// exported as `eua_plugin_entry_v1`. Each plugin library has its own copy of this kit,
    /// so one library registers one plugin.
    public static func table(
        for pluginType: any ExternalUserAgentPlugin.Type,
        host: UnsafePointer<eua_host_table>?
    ) -> UnsafePointer<eua_plugin_table>? {
        guard let host, host.pointee.abi_version == EUA_PLUGIN_ABI_VERSION else { return nil }
        PluginHost.install(host)
        plugin.withLock { $0 = PluginType(type: pluginType) }
        return UnsafePointer(staticTable)
    }

    nonisolated(unsafe) private static let staticTable: UnsafeMutablePointer<eua_plugin_table> = {
        let table = UnsafeMutablePointer<eua_plugin_table>.allocate(capacity: 1)
        table.initialize(
            to: eua_plugin_table(
                abi_version: EUA_PLUGIN_ABI_VERSION,
                struct_size: UInt32(MemoryLayout<eua_plugin_table>.size),
                context: nil,
                describe: { _ in PluginExport.describe() },
                free_string: { string in free(string) },
                create: { _, componentID, options, error in
                    PluginExport.create(componentID: componentID, options: options, error: error)
                },
                start: { instance, request, onEvent, context in
                    guard let instance, let onEvent else { return }
                    let box = Unmanaged<ComponentBox>.fromOpaque(instance).takeUnretainedValue()
                    let events = PluginEvents(function: onEvent, context: context)
                    box.component.start(
                        PluginStartRequest(json: request.map { String(cString: $0) } ?? "{}"), events: events)
                },
                cancel: { instance in
                    guard let instance else { return }
                    Unmanaged<ComponentBox>.fromOpaque(instance).takeUnretainedValue().component.cancel()
                },
                destroy: { instance in
                    guard let instance else { return }
                    Unmanaged<ComponentBox>.fromOpaque(instance).release()
                }))
        return table
    }()

    private static func describe() -> UnsafeMutablePointer<CChar>? {
        guard let type = plugin.withLock({ $0?.type }) else { return nil }
        return strdup(type.describe().jsonText)
    }

    private static func create(
        componentID: UnsafePointer<CChar>?, options: UnsafePointer<CChar>?,
        error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
    ) -> UnsafeMutableRawPointer? {
        func fail(_ failure: PluginError) -> UnsafeMutableRawPointer? {
            let value = PluginABI.ErrorValue(code: failure.code.rawValue, message: failure.message)
            error?.pointee = strdup(value.jsonText)
            return nil
        }
        guard let type = plugin.withLock({ $0?.type }) else {
            return fail(PluginError(.invalidOptions, "the plugin was not initialised through its entry symbol"))
        }
        let id = componentID.map { String(cString: $0) } ?? ""
        do {
            let parsed = try PluginABI.options(fromJSONText: options.map { String(cString: $0) })
            let component = try type.makeInstance(componentID: id, options: parsed)
            return Unmanaged.passRetained(ComponentBox(component)).toOpaque()
        } catch let failure as PluginError {
            return fail(failure)
        } catch {
            return fail(.invalidOptions("options for '\(id)' are not a JSON object of strings: \(error)"))
        }
    }

    private final class ComponentBox {
        let component: any PluginComponent
        init(_ component: any PluginComponent) { self.component = component }
    }
}
