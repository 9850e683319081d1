// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentABI
@_exported import enum ExternalUserAgentABI.JSONValue
import Synchronization

/// An agent offered by a loaded plugin, seen through the C ABI.
public struct PluginAgentEntry: Sendable {
    /// Who the agent is; `path` is the plugin file.
    public let descriptor: AgentDescriptor
    /// Whether it can run on this machine, as the plugin probed it.
    public let available: Bool
    /// Why not, when it cannot (never empty then).
    public let reasons: [String]
    /// What the plugin found on this machine (default handler, installed browsers, …), for reports.
    public let details: [String: JSONValue]
    /// The plugin that offers it.
    public let plugin: LoadedPlugin

    /// An agent for one session, with `options` (`mode=redirect`, `profile=work`, …).
    /// `dismissGrace` bounds how long `dismiss()` waits for the plugin to finish.
    public func makeAgent(options: [String: String] = [:], dismissGrace: Duration = .seconds(5)) -> PluginAgent {
        PluginAgent(entry: self, options: options, dismissGrace: dismissGrace)
    }
}

/// An ``ExternalUserAgent`` that runs inside a plugin.
public final class PluginAgent: ExternalUserAgent {
    public let descriptor: AgentDescriptor
    private let entry: PluginAgentEntry
    private let options: [String: String]
    private let instance = Mutex<PluginInstance?>(nil)

    /// How long `dismiss()` waits for the plugin to finish before leaving it be.
    public let dismissGrace: Duration

    init(entry: PluginAgentEntry, options: [String: String], dismissGrace: Duration) {
        self.entry = entry
        self.descriptor = entry.descriptor
        self.options = options
        self.dismissGrace = dismissGrace
    }

    /// Asks the plugin to show `request.url` and waits for it to say so (`presented`, or `finished`).
    ///
    /// With a `request.timeout`, that wait has that deadline: past it, the plugin is told to cancel and this
    /// throws `timedOut`, naming the agent and its plugin file. A plugin whose `create` or `start` does not
    /// return at once (within the loader's `callTimeout`) gives `pluginProtocolViolation`.
    public func present(_ request: AgentRequest, session: ExternalUserAgentSession) async throws {
        let instance = try await entry.plugin.makeInstance(
            componentID: descriptor.id, options: options, failureCode: .presentationFailed)
        let replaced = self.instance.withLock { current -> Bool in
            defer { current = instance }
            return current != nil
        }
        if replaced {
            throw ExternalUserAgentError(
                .presentationFailed, "agent '\(descriptor.id)' is already presenting; use one agent per session")
        }
        let presented = OneShot<Void>()
        // Set when "presented" won the race with the deadline: only then does a later failure end the session.
        // A failure after present() failed (the plugin's answer to our cancel) must not replace that error.
        let shown = Latch()
        let label = "agent '\(descriptor.id)' (\(entry.plugin.path))"
        let logger = entry.plugin.logger
        let wire = PluginABI.AgentRequest(
            url: request.url.absoluteString, redirectURI: request.redirectURI.absoluteString,
            timeoutSeconds: request.timeout.map(Self.seconds), purpose: request.purpose.rawValue)
        try await instance.start(
            requestJSON: wire.jsonText,
            returnTimeout: entry.plugin.callTimeout
        ) { event in
            switch event {
            case .presented, .finished:
                if presented.fulfill(.success(())) { shown.signal() }
            case .redirect(let text):
                let url: URL
                switch PluginInput.callbackURL(text) {
                case .success(let parsed): url = parsed
                case .failure(let problem):
                    logger.error("agent sent \(problem); ignored", metadata: ["plugin": "\(label)"])
                    return
                }
                do {
                    try session.resume(with: url)
                } catch {
                    logger.warning(
                        "the session refused the agent's redirect: \(error)", metadata: ["plugin": "\(label)"])
                }
            case .failed(let value):
                let error = Self.error(from: value, default: .presentationFailed, label: label)
                if !presented.fulfill(.failure(error)), shown.isSignaled {
                    session.fail(with: error)
                }
            case .listening, .callback, .refused:
                logger.error("agent sent a receiver event; ignored (a plugin bug)", metadata: ["plugin": "\(label)"])
            }
        }
        let deadline = request.timeout.map { timeout in
            Task {
                try await Task.sleep(for: timeout)
                presented.fulfill(
                    .failure(
                        ExternalUserAgentError(
                            .timedOut,
                            "\(label) did not say it had shown the URL within \(Self.seconds(timeout)) s, so it was told to "
                                + "cancel; see its log lines (debug level), give it more time (a longer time limit, or "
                                + "timeouts.present in the configuration) or choose another agent",
                            remedies: [.seeDebugLog, .allowMoreTime, .chooseAgent, .listAgents])))
            }
        }
        defer { deadline?.cancel() }
        do {
            try await presented.value()
        } catch let error as ExternalUserAgentError where error.code == .timedOut {
            instance.cancel()
            throw error
        }
    }

    /// Cancels the plugin's instance and waits up to ``dismissGrace`` for it to finish; an instance that
    /// does not finish (or whose `cancel` never returns) is given up, not freed, and the host goes on.
    public func dismiss() async {
        guard let instance = instance.withLock({ $0 }) else { return }
        await instance.stop(grace: dismissGrace)
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    static func error(
        from value: PluginABI.ErrorValue, default code: ExternalUserAgentError.Code,
        label: String
    ) -> ExternalUserAgentError {
        ExternalUserAgentError(ExternalUserAgentError.Code(name: value.code) ?? code, "\(label): \(value.message)")
    }
}
