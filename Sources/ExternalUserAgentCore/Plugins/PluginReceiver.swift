// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentABI
import Synchronization

/// A redirect receiver offered by a loaded plugin.
public struct PluginReceiverEntry: Sendable {
    /// Its id (`loopback`).
    public let id: String
    /// A name for people.
    public let name: String
    /// Whether it can run on this machine, and why not.
    public let available: Bool
    /// Why it cannot run here, when it cannot.
    public let reasons: [String]
    /// What the plugin found on this machine, for reports.
    public let details: [String: JSONValue]
    /// The plugin that offers it.
    public let plugin: LoadedPlugin

    /// A receiver for one session, with `options` (`port=8400`, `path=/cb`, …).
    /// `stopGrace` bounds how long `stop()` waits for the plugin to finish.
    public func makeReceiver(options: [String: String] = [:], stopGrace: Duration = .seconds(5)) -> PluginReceiver {
        PluginReceiver(entry: self, options: options, stopGrace: stopGrace)
    }
}

/// A ``RedirectReceiver`` that runs inside a plugin.
public final class PluginReceiver: RedirectReceiver {
    /// The receiver's id.
    public var id: String { entry.id }
    private let entry: PluginReceiverEntry
    private let options: [String: String]
    private let instance = Mutex<PluginInstance?>(nil)

    /// How long `stop()` waits for the plugin to finish before leaving it be.
    public let stopGrace: Duration

    init(entry: PluginReceiverEntry, options: [String: String], stopGrace: Duration) {
        self.entry = entry
        self.options = options
        self.stopGrace = stopGrace
    }

    /// Starts the plugin's receiver and waits for its redirect URI (the `listening` event), which must be an
    /// absolute URI without userinfo or fragment.
    ///
    /// With a `request.timeout`, that wait has that deadline: past it, the plugin is told to cancel and this
    /// throws `timedOut`, naming the receiver and its plugin file.
    public func start(_ request: ReceiverRequest, session: ExternalUserAgentSession) async throws -> URL {
        let instance = try await entry.plugin.makeInstance(
            componentID: entry.id, options: options, failureCode: .receiverFailed)
        self.instance.withLock { $0 = instance }
        let listening = OneShot<URL>()
        // Set when the redirect URI won the race with the deadline: only then does a later failure end the session.
        // A failure after start() failed (the plugin's answer to our cancel) must not replace that error.
        let handedOver = Latch()
        let label = "receiver '\(entry.id)' (\(entry.plugin.path))"
        let logger = entry.plugin.logger
        let wire = PluginABI.ReceiverRequest(
            state: request.expectedState, path: options["path"],
            timeoutSeconds: request.timeout.map(PluginAgent.seconds), handOff: request.handOff?.wire)
        try await instance.start(
            requestJSON: wire.jsonText,
            returnTimeout: entry.plugin.callTimeout
        ) { event in
            switch event {
            case .listening(let text):
                switch PluginInput.redirectURI(text) {
                case .success(let url):
                    if listening.fulfill(.success(url)) { handedOver.signal() }
                case .failure(let problem):
                    listening.fulfill(
                        .failure(
                            ExternalUserAgentError(
                                .receiverFailed,
                                "\(label): \(problem); the receiver is not used: fix the plugin or remove it")))
                }
            case .callback(let text), .redirect(let text):
                let url: URL
                switch PluginInput.callbackURL(text) {
                case .success(let parsed): url = parsed
                case .failure(let problem):
                    logger.error("receiver sent \(problem); ignored", metadata: ["plugin": "\(label)"])
                    return
                }
                do {
                    try session.resume(with: url)
                } catch {
                    logger.warning(
                        "the session refused the receiver's callback: \(error)", metadata: ["plugin": "\(label)"])
                }
            case .refused(let status, let reason):
                switch PluginInput.refusal(status: status, reason: reason) {
                case .success(let refusal):
                    logger.info(
                        "receiver turned a request away; still waiting",
                        metadata: ["plugin": "\(label)", "status": "\(refusal.status)"])
                    session.noteRefused("\(label) answered HTTP \(refusal.status): \(refusal.reason)")
                case .failure(let problem):
                    logger.error("receiver sent \(problem); ignored", metadata: ["plugin": "\(label)"])
                }
            case .finished:
                listening.fulfill(
                    .failure(
                        ExternalUserAgentError(
                            .receiverFailed, "\(label) finished without giving a redirect URI")))
            case .failed(let value):
                let error = PluginAgent.error(from: value, default: .receiverFailed, label: label)
                if !listening.fulfill(.failure(error)), handedOver.isSignaled {
                    session.fail(with: error)
                }
            case .presented:
                logger.error("receiver sent an agent event; ignored (a plugin bug)", metadata: ["plugin": "\(label)"])
            }
        }
        let deadline = request.timeout.map { timeout in
            Task {
                try await Task.sleep(for: timeout)
                listening.fulfill(
                    .failure(
                        ExternalUserAgentError(
                            .timedOut,
                            "\(label) did not give its redirect URI within \(PluginAgent.seconds(timeout)) s, so it was told to "
                                + "cancel; see its log lines (debug level), give it more time (a longer time limit) or remove "
                                + "the plugin",
                            remedies: [.seeDebugLog, .allowMoreTime])))
            }
        }
        defer { deadline?.cancel() }
        do {
            return try await listening.value()
        } catch let error as ExternalUserAgentError where error.code == .timedOut {
            instance.cancel()
            throw error
        }
    }

    /// Cancels the plugin's instance and waits up to ``stopGrace`` for it to finish; an instance that does
    /// not finish (or whose `cancel` never returns) is given up, not freed, and the host goes on.
    public func stop() async {
        guard let instance = instance.withLock({ $0 }) else { return }
        await instance.stop(grace: stopGrace)
    }
}
