import CExternalUserAgentPlugin
import ExternalUserAgentABI
import Logging

/// A plugin that loaded and described itself: its file, its table and what it offers.
public struct LoadedPlugin: Sendable {
    /// The `.so` file it came from.
    public let path: String
    /// What `describe()` said.
    public let description: PluginWire.PluginDescription
    let table: PluginTable
    let logger: Logger

    /// Creates an instance of `componentID` with `options`; throws the plugin's error.
    func makeInstance(componentID: String, options: [String: String],
                      failureCode: ExternalUserAgentError.Code) throws -> PluginInstance {
        let optionsJSON = (try? PluginWire.encode(options)) ?? "{}"
        var errorJSON: UnsafeMutablePointer<CChar>?
        let handle = componentID.withCString { id in
            optionsJSON.withCString { options in
                table.pointer.pointee.create(table.pointer.pointee.context, id, options, &errorJSON)
            }
        }
        let errorText = errorJSON.map { String(cString: $0) }
        if let errorJSON { table.pointer.pointee.free_string(errorJSON) }
        guard let handle else {
            let where_ = "plugin \(path), component '\(componentID)'"
            guard let errorText, let error = try? PluginWire.decode(PluginWire.ErrorValue.self, from: errorText) else {
                throw ExternalUserAgentError(failureCode, "\(where_): create failed and gave no reason")
            }
            let code = ExternalUserAgentError.Code(name: error.code) ?? failureCode
            throw ExternalUserAgentError(code, "\(where_): \(error.message)")
        }
        return PluginInstance(table: table, handle: handle, label: "\(path) '\(componentID)'", logger: logger)
    }
}

/// The plugin's C table; immutable and valid for the life of the process.
struct PluginTable: @unchecked Sendable {
    let pointer: UnsafePointer<eua_plugin_table>
}
