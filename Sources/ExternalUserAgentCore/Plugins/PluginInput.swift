// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentRules
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import ExternalUserAgentABI

/// Everything the host accepts from a plugin, decoded and checked in one place: the `describe()` text and
/// each event text. The loader and every instance use these functions; so do the fuzz targets, through
/// ``checkDescription(bytes:)`` and ``checkEvent(bytes:)``.
package enum PluginInput {
    /// The largest `describe()` text accepted, in bytes.
    static let maximumDescriptionBytes = 1 << 20
    /// The largest event or error text accepted, in bytes.
    static let maximumEventBytes = 64 << 10

    /// A plugin's description, with what the host will use of it and what it refused.
    struct CheckedDescription {
        var description: PluginABI.PluginDescription
        /// Agents whose id and kind are valid, with their kind.
        var agents: [(component: PluginABI.Component, kind: AgentKind)] = []
        /// Receivers whose id is valid.
        var receivers: [PluginABI.Component] = []
        /// One error per component that was skipped, saying why.
        var skipped: [ExternalUserAgentError] = []
    }

    /// Decodes and checks `describe()`'s text: its size, its JSON shape, the plugin id and every component
    /// id (``ComponentID``; agents and receivers share one namespace) and agent kind. A broken text or
    /// plugin id refuses the whole plugin; a broken component is only skipped.
    static func description(_ text: String) -> Result<CheckedDescription, ExternalUserAgentError> {
        if text.utf8.count > maximumDescriptionBytes {
            return .failure(
                ExternalUserAgentError(
                    .pluginDescriptionInvalid,
                    "describe() returned \(text.utf8.count) bytes; at most \(maximumDescriptionBytes) are accepted"))
        }
        let description: PluginABI.PluginDescription
        do {
            description = try PluginABI.PluginDescription(jsonText: text)
        } catch {
            return .failure(
                ExternalUserAgentError(
                    .pluginDescriptionInvalid,
                    "describe() did not return a valid plugin description (\(explain(error))); expected "
                        + "{\"id\":…,\"agents\":[…],\"receivers\":[…]}, got: \(text.prefix(120))"))
        }
        if let problem = ComponentID.problem(with: description.id) {
            return .failure(
                ExternalUserAgentError(
                    .pluginDescriptionInvalid, "describe() gave a bad plugin id: \(problem); the plugin is refused"))
        }
        var checked = CheckedDescription(description: description)
        var taken: [String: String] = [:]
        for component in description.agents {
            if let problem = componentProblem(component.id, role: "agent", taken: taken) {
                checked.skipped.append(problem)
                continue
            }
            guard let name = component.kind, let kind = AgentKind(rawValue: name) else {
                checked.skipped.append(
                    ExternalUserAgentError(
                        .pluginDescriptionInvalid,
                        "agent '\(component.id)' has kind \(component.kind.map(ComponentID.quoted) ?? "(missing)"); expected "
                            + "one of " + AgentKind.allCases.map(\.rawValue).joined(separator: ", ")
                            + "; the agent is skipped"))
                continue
            }
            if let family = component.family, let problem = ComponentID.problem(with: family) {
                checked.skipped.append(
                    ExternalUserAgentError(
                        .pluginDescriptionInvalid,
                        "agent '\(component.id)' gave a bad family: \(problem); the agent is skipped"))
                continue
            }
            taken[component.id] = "an agent"
            checked.agents.append((component, kind))
        }
        for component in description.receivers {
            if let problem = componentProblem(component.id, role: "receiver", taken: taken) {
                checked.skipped.append(problem)
                continue
            }
            taken[component.id] = "a receiver"
            checked.receivers.append(component)
        }
        return .success(checked)
    }

    /// Why a component id cannot be used, when it cannot: a bad id, or one this plugin already gave.
    private static func componentProblem(_ id: String, role: String, taken: [String: String]) -> ExternalUserAgentError?
    {
        if let problem = ComponentID.problem(with: id) {
            return ExternalUserAgentError(.pluginDescriptionInvalid, "\(role) skipped: \(problem)")
        }
        if let owner = taken[id] {
            return ExternalUserAgentError(
                .pluginDuplicateID,
                "\(role) id '\(id)' is already taken by \(owner) of this plugin (agents and receivers share one "
                    + "namespace); this \(role) is skipped")
        }
        return nil
    }

    /// Decodes one event text; the error says what is wrong with it (never its content: URLs carry codes).
    static func event(_ text: String) -> Result<PluginABI.Event, PluginInputProblem> {
        if text.utf8.count > maximumEventBytes {
            return .failure(
                PluginInputProblem("an event of \(text.utf8.count) bytes (at most \(maximumEventBytes) are accepted)"))
        }
        do {
            return .success(try PluginABI.Event(jsonText: text))
        } catch {
            return .failure(PluginInputProblem("an event that is not valid event JSON (\(explain(error)))"))
        }
    }

    /// The redirect URI a receiver reports in its `listening` event, checked: an absolute URI with no
    /// userinfo (`user@`) and no fragment (RFC 6749 §3.1.2).
    static func redirectURI(_ text: String) -> Result<URL, PluginInputProblem> {
        guard let url = URL(string: text), let scheme = url.scheme, !scheme.isEmpty,
            URLComponents(url: url, resolvingAgainstBaseURL: false) != nil
        else {
            return .failure(PluginInputProblem("its redirect URI is not an absolute URI"))
        }
        if let part = RedirectURIMatch.forbiddenPart(of: url) {
            return .failure(PluginInputProblem("its redirect URI has \(part), which a redirect URI must not have"))
        }
        if url.fragment != nil {
            return .failure(
                PluginInputProblem(
                    "its redirect URI has a fragment ('#…'), which a redirect URI must not have (RFC 6749 §3.1.2)"))
        }
        return .success(url)
    }

    /// A callback URL an agent or receiver hands over; whether it belongs to the flow is the session's call.
    static func callbackURL(_ text: String) -> Result<URL, PluginInputProblem> {
        guard let url = URL(string: text), let scheme = url.scheme, !scheme.isEmpty else {
            return .failure(PluginInputProblem("a callback that is not an absolute URL"))
        }
        return .success(url)
    }

    /// A receiver's `refused` event, checked: an HTTP error status (400–599) and a reason of one line,
    /// at most 200 characters, which the host shows as the plugin's words.
    static func refusal(status: Int, reason: String) -> Result<(status: Int, reason: String), PluginInputProblem> {
        guard (400...599).contains(status) else {
            return .failure(
                PluginInputProblem("its 'refused' event has status \(status), not an HTTP error status (400-599)"))
        }
        guard !reason.isEmpty, reason.count <= 200, !reason.contains(where: \.isNewline) else {
            return .failure(
                PluginInputProblem("its 'refused' event needs a reason of one line and at most 200 characters"))
        }
        return .success((status, reason))
    }

    /// Copies a C string from a plugin, reading at most `limit + 1` bytes; `nil` for NULL or a longer string.
    static func string(_ pointer: UnsafePointer<CChar>?, limit: Int) -> String? {
        guard let pointer else { return nil }
        let length = strnlen(pointer, limit + 1)
        guard length <= limit else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
    }

    static func explain(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): return "not JSON: \(context.debugDescription)"
        case DecodingError.keyNotFound(let key, _): return "missing key '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            let where_ = context.codingPath.map(\.stringValue).joined(separator: ".")
            return "wrong type at '\(where_)': \(context.debugDescription)"
        default: return "\(error)"
        }
    }
}

/// What is wrong with something a plugin sent, in words that never quote it.
struct PluginInputProblem: Error, Sendable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension PluginInput {
    /// Runs the loader's decoding and checks on the bytes of a `describe()` text (up to the first NUL, as
    /// the loader reads it). Never traps; `true` when the plugin would be accepted. For fuzz targets.
    @discardableResult
    package static func checkDescription(bytes: some Collection<UInt8>) -> Bool {
        let text = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        guard case .success = description(text) else { return false }
        return true
    }

    /// Runs an instance's decoding and checks on the bytes of one event text (up to the first NUL), the
    /// URL checks of the event's kind included. Never traps; `true` when the event would be used. For fuzz targets.
    @discardableResult
    package static func checkEvent(bytes: some Collection<UInt8>) -> Bool {
        let text = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        switch event(text) {
        case .failure: return false
        case .success(.listening(let uri)):
            guard case .success = redirectURI(uri) else { return false }
        case .success(.redirect(let url)), .success(.callback(let url)):
            guard case .success(let parsed) = callbackURL(url) else { return false }
            _ = RedirectURIMatch.mismatch(callback: parsed, redirectURI: parsed)
        case .success(.failed(let value)):
            _ = ExternalUserAgentError.Code(name: value.code)
        case .success(.refused(let status, let reason)):
            guard case .success = refusal(status: status, reason: reason) else { return false }
        case .success(.presented), .success(.finished):
            break
        }
        return true
    }
}
