// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
@_exported import ExternalUserAgentABI
import CExternalUserAgentPlugin

/// What a Swift plugin implements. Export it with ``PluginExport/table(for:host:)`` from a
/// function marked `@_cdecl("eua_plugin_entry_v1")`; that is the whole plugin boilerplate.
///
/// ```swift
/// @_cdecl("eua_plugin_entry_v1")
/// public func euaPluginEntry(_ host: UnsafePointer<eua_host_table>?) -> UnsafePointer<eua_plugin_table>? {
///     PluginExport.table(for: MyPlugin.self, host: host)
/// }
/// ```
public protocol ExternalUserAgentPlugin {
    /// The plugin and what it offers on this machine. Called once per load; must be fast
    /// (no subprocesses): probe with files and the environment, cache the rest.
    static func describe() -> PluginABI.PluginDescription

    /// A new instance of the agent or receiver `componentID` with `options` (string values).
    /// Throw ``PluginError`` for options that cannot work.
    static func makeInstance(componentID: String, options: [String: String]) throws -> any PluginComponent
}

/// One running agent or receiver inside a plugin.
public protocol PluginComponent: AnyObject, Sendable {
    /// Starts the work and returns at once; report through `events`, ending with exactly one
    /// terminal event (`finished` or `failed`).
    func start(_ request: PluginStartRequest, events: PluginEvents)

    /// Stop soon (close the browser, the sockets) and then send the terminal event if not sent yet.
    func cancel()
}

/// An error a plugin reports to the host; `code` is one of the names in `eua_plugin.h`.
public struct PluginError: Error, Sendable {
    /// The codes of `eua_plugin.h`'s `eua_error_code`, by the names they travel under on the wire.
    public enum Code: String, Sendable, CaseIterable {
        /// `EUA_ERROR_USER_CANCELED`: the person closed the browser or said no.
        case userCanceled
        /// `EUA_ERROR_PROGRAM_CANCELED`: the host asked the instance to cancel.
        case programCanceled
        /// `EUA_ERROR_TIMED_OUT`: something the plugin waited for did not come in time.
        case timedOut
        /// `EUA_ERROR_PRESENTATION_FAILED`: an agent could not show the URL.
        case presentationFailed
        /// `EUA_ERROR_RECEIVER_FAILED`: a receiver could not start or failed while waiting.
        case receiverFailed
        /// `EUA_ERROR_INVALID_OPTIONS`: the options given cannot work.
        case invalidOptions
        /// `EUA_ERROR_OAUTH_ERROR`: the authorization server answered with an OAuth error.
        case oauthError

        /// The header's number for this code (`EUA_ERROR_TIMED_OUT`…).
        public var number: eua_error_code {
            switch self {
            case .userCanceled: EUA_ERROR_USER_CANCELED
            case .programCanceled: EUA_ERROR_PROGRAM_CANCELED
            case .timedOut: EUA_ERROR_TIMED_OUT
            case .presentationFailed: EUA_ERROR_PRESENTATION_FAILED
            case .receiverFailed: EUA_ERROR_RECEIVER_FAILED
            case .invalidOptions: EUA_ERROR_INVALID_OPTIONS
            case .oauthError: EUA_ERROR_OAUTH_ERROR
            }
        }
    }

    /// What kind of failure it is.
    public var code: Code
    /// What went wrong and what to do.
    public var message: String

    /// An error with `code` and `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Options that cannot work; say which and what is expected.
    public static func invalidOptions(_ message: String) -> PluginError {
        PluginError(.invalidOptions, message)
    }

    /// The whole number an option `key=value` gives, checked against `range` (the one rule for numeric
    /// options; `unit` names what it counts, e.g. "milliseconds"). Throws ``invalidOptions(_:)`` otherwise.
    public static func wholeNumber(
        _ key: String, _ value: String, in range: ClosedRange<Int>,
        unit: String? = nil
    ) throws(PluginError) -> Int {
        guard let number = Int(value), range.contains(number) else {
            throw invalidOptions(
                "option \(key)=\(value) must be a whole number\(unit.map { " of \($0)" } ?? "") "
                    + "from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }
}

/// The request `start` received, as the host sent it.
public struct PluginStartRequest: Sendable {
    /// The raw JSON text.
    public let json: String

    /// The request for an agent.
    public func agentRequest() throws -> PluginABI.AgentRequest {
        try PluginABI.AgentRequest(jsonText: json)
    }

    /// The request for a receiver.
    public func receiverRequest() throws -> PluginABI.ReceiverRequest {
        try PluginABI.ReceiverRequest(jsonText: json)
    }
}
