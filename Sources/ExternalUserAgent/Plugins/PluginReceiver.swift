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
    public let reasons: [String]
    /// What the plugin found on this machine, for reports.
    public let details: [String: JSONValue]
    /// The plugin that offers it.
    public let plugin: LoadedPlugin

    /// A receiver for one session, with `options` (`port=8400`, `path=/cb`, …).
    public func makeReceiver(options: [String: String] = [:]) -> PluginReceiver {
        PluginReceiver(entry: self, options: options)
    }
}

/// A ``RedirectReceiver`` that runs inside a plugin.
public final class PluginReceiver: RedirectReceiver {
    public var id: String { entry.id }
    private let entry: PluginReceiverEntry
    private let options: [String: String]
    private let instance = Mutex<PluginInstance?>(nil)

    init(entry: PluginReceiverEntry, options: [String: String]) {
        self.entry = entry
        self.options = options
    }

    public func start(_ request: ReceiverRequest, session: ExternalUserAgentSession) async throws -> URL {
        let instance = try entry.plugin.makeInstance(
            componentID: entry.id, options: options, failureCode: .receiverFailed)
        self.instance.withLock { $0 = instance }
        let listening = OneShot<URL>()
        let label = "receiver '\(entry.id)' (\(entry.plugin.path))"
        let logger = entry.plugin.logger
        let wire = PluginWire.ReceiverRequest(
            state: request.expectedState, path: options["path"],
            timeoutSeconds: request.timeout.map(PluginAgent.seconds))
        instance.start(requestJSON: (try? PluginWire.encode(wire)) ?? "{}") { event in
            switch event {
            case .listening(let text):
                guard let url = URL(string: text) else {
                    listening.fulfill(.failure(ExternalUserAgentError(
                        .receiverFailed, "\(label): its redirect URI is not a URL")))
                    return
                }
                listening.fulfill(.success(url))
            case .callback(let text), .redirect(let text):
                guard let url = URL(string: text) else {
                    logger.error("receiver sent a callback that is not a URL; ignored", metadata: ["plugin": "\(label)"])
                    return
                }
                do {
                    try session.resume(with: url)
                } catch {
                    logger.warning("the session refused the receiver's callback: \(error)", metadata: ["plugin": "\(label)"])
                }
            case .refused(let status, let reason):
                logger.info("receiver turned a request away; still waiting",
                            metadata: ["plugin": "\(label)", "status": "\(status)"])
                session.noteRefused("\(label) answered HTTP \(status): \(reason)")
            case .finished:
                listening.fulfill(.failure(ExternalUserAgentError(
                    .receiverFailed, "\(label) finished without giving a redirect URI")))
            case .failed(let value):
                let error = PluginAgent.error(from: value, default: .receiverFailed, label: label)
                if !listening.fulfill(.failure(error)) {
                    session.fail(with: error)
                }
            case .presented:
                logger.error("receiver sent an agent event; ignored (a plugin bug)", metadata: ["plugin": "\(label)"])
            }
        }
        return try await listening.value()
    }

    public func stop() async {
        guard let instance = instance.withLock({ $0 }) else { return }
        instance.cancel()
        _ = await instance.waitForTerminal(timeout: .seconds(5))
        instance.destroy()
    }
}
