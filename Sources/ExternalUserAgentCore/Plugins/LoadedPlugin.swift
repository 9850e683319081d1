// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import CExternalUserAgentPlugin
import ExternalUserAgentABI
import ExternalUserAgentSystem
import Logging

/// A plugin that loaded and described itself: its file, its table and what it offers.
public struct LoadedPlugin: Sendable {
    /// The `.so` file it came from, as found on the search path (``PluginLoader`` opened the file it resolves to).
    public let path: String
    /// What `describe()` said.
    public let description: PluginABI.PluginDescription
    let table: PluginTable
    let logger: Logger
    /// How long `create` and `start`, which the ABI says return at once, may take.
    let callTimeout: Duration

    /// Creates an instance of `componentID` with `options`; throws the plugin's error, or
    /// `pluginProtocolViolation` when `create` does not return within ``callTimeout``.
    func makeInstance(
        componentID: String, options: [String: String],
        failureCode: ExternalUserAgentError.Code
    ) async throws(ExternalUserAgentError) -> PluginInstance {
        let optionsJSON = PluginABI.jsonText(options: options)
        let table = self.table
        let where_ = "plugin \(path), component '\(componentID)'"
        let create = { @Sendable () -> Created in
            var errorJSON: UnsafeMutablePointer<CChar>?
            let handle = componentID.withCString { id in
                optionsJSON.withCString { options in
                    table.pointer.pointee.create(table.pointer.pointee.context, id, options, &errorJSON)
                }
            }
            let errorText = PluginInput.string(errorJSON, limit: PluginInput.maximumEventBytes)
            if let errorJSON { table.pointer.pointee.free_string(errorJSON) }
            return Created(handle: handle, errorText: errorText)
        }
        let call: BlockingCall<Created>
        do {
            call = try BlockingCall.start(create)
        } catch {
            throw ExternalUserAgentError(failureCode, "\(where_): create() could not be called: \(error)")
        }
        let created: Created
        switch await call.value(timeout: callTimeout) {
        case .returned(let value): created = value
        case .timedOut:
            throw ExternalUserAgentError(
                .pluginProtocolViolation,
                "\(where_): create() did not return within \(callTimeout) (the plugin ABI says it returns at once); "
                    + "report this to the plugin's author, or remove the plugin")
        case .cancelled:
            // An instance it makes later is never used, so never freed: the plugin may still be inside create().
            throw ExternalUserAgentError(.programCanceled, "\(where_): cancelled while create() had not returned")
        }
        guard let handle = created.handle else {
            guard let errorText = created.errorText,
                let error = try? PluginABI.ErrorValue(jsonText: errorText)
            else {
                throw ExternalUserAgentError(failureCode, "\(where_): create failed and gave no reason")
            }
            let code = ExternalUserAgentError.Code(name: error.code) ?? failureCode
            throw ExternalUserAgentError(code, "\(where_): \(error.message)")
        }
        return PluginInstance(table: table, handle: handle, label: "\(path) '\(componentID)'", logger: logger)
    }

    /// What `create` gave back, carried off the thread it ran on.
    private struct Created: @unchecked Sendable {
        var handle: UnsafeMutableRawPointer?
        var errorText: String?
    }
}

/// The plugin's C table; immutable and valid for the life of the process.
struct PluginTable: @unchecked Sendable {
    let pointer: UnsafePointer<eua_plugin_table>
}
