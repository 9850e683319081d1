import ExternalUserAgentPluginKit
import PluginNet
import Synchronization

/// One flow's loopback receiver: listens on a thread of its own, hands back the first valid redirect,
/// then closes.
final class LoopbackReceiver: PluginComponent {
    private let options: LoopbackOptions
    private let state = Mutex(State())

    private struct State {
        var stop: StopSignal?
        var cancelled = false
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
        var flowOptions = options
        if flowOptions.path == nil, let path = parsed.path { flowOptions.path = path }
        let stop: StopSignal
        do {
            stop = try StopSignal()
        } catch {
            events.failed("receiverFailed", "loopback receiver: \(error); the process may be out of file descriptors")
            return
        }
        if state.withLock({ state in
            state.stop = stop
            return state.cancelled
        }) {
            stop.raise()
        }
        let failure = NetThread.start(name: "eua-loopback") { [flowOptions] in
            LoopbackServer.run(options: flowOptions, expectedState: parsed.state, stop: stop, events: events)
            stop.close()
        }
        if let failure {
            stop.close()
            events.failed("receiverFailed", "loopback receiver: could not start its thread: \(failure)")
        }
    }

    /// Stops the listener: it closes everything, lets a reply being written finish (at most 2 s), then
    /// says `finished`. A no-op once it has finished.
    func cancel() {
        state.withLock { state -> StopSignal? in
            state.cancelled = true
            return state.stop
        }?.raise()
    }
}
