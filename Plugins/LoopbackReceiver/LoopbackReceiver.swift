import ExternalUserAgentPluginKit
import Synchronization

/// One flow's loopback receiver: listens, hands back the first valid redirect, then closes.
final class LoopbackReceiver: PluginComponent {
    private let options: LoopbackOptions
    private let state = Mutex(State())

    private struct State {
        var server: LoopbackServer?
        var starting: Task<Void, Never>?
        var cancelled = false
        var events: PluginEvents?
    }

    init(options: LoopbackOptions) {
        self.options = options
    }

    func start(_ request: PluginStartRequest, events: PluginEvents) {
        let parsed: PluginWire.ReceiverRequest
        do {
            parsed = try request.receiverRequest()
        } catch {
            events.failed("receiverFailed", "loopback receiver: the host's request is not valid JSON: \(error)")
            return
        }
        var options = self.options
        if options.path == nil, let path = parsed.path { options.path = path }
        let task = Task { [self] in
            do {
                let server = try await LoopbackServer.start(
                    options: options, expectedState: parsed.state,
                    onRefused: { status, reason in events.refused(status: status, reason: reason) }
                ) { url in
                    events.callback(url)
                    PluginHost.log(.debug, "loopback receiver: redirect accepted; listeners closed")
                    // One-shot: finish on our own once the browser has its reply, so stop() finds us done.
                    Task { [self] in
                        if let server = state.withLock({ $0.server }) { await server.shutdown() }
                        events.finished()
                    }
                }
                let cancelled = state.withLock { state -> Bool in
                    state.server = server
                    return state.cancelled
                }
                if cancelled {
                    await server.shutdown()
                    events.finished()
                    return
                }
                PluginHost.log(.debug, "loopback receiver listening at \(server.redirectURI)")
                events.listening(redirectURI: server.redirectURI)
            } catch let failure as LoopbackServer.StartFailure {
                events.failed("receiverFailed", "loopback receiver: \(failure.message)")
            } catch {
                events.failed("receiverFailed", "loopback receiver: \(error)")
            }
        }
        state.withLock {
            $0.starting = task
            $0.events = events
        }
    }

    func cancel() {
        let (starting, events) = state.withLock { state -> (Task<Void, Never>?, PluginEvents?) in
            state.cancelled = true
            return (state.starting, state.events)
        }
        Task {
            await starting?.value
            if let server = state.withLock({ $0.server }) {
                await server.shutdown()
            }
            // A no-op when start already ended with `failed` or `finished`.
            events?.finished()
        }
    }
}
