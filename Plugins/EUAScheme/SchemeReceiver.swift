import ExternalUserAgentPluginKit
import PluginNet
import Synchronization

/// One flow's scheme receiver: waits on the scheme's hand-off socket on a thread of its own, hands back the
/// first valid redirect, then removes the socket.
final class SchemeReceiver: PluginComponent {
    private let options: SchemeOptions
    private let state = Mutex(State())

    private struct State {
        var stop: StopSignal?
        var cancelled = false
    }

    init(options: SchemeOptions) {
        self.options = options
    }

    func start(_ request: PluginStartRequest, events: PluginEvents) {
        let parsed: PluginWire.ReceiverRequest
        do {
            parsed = try request.receiverRequest()
        } catch {
            events.failed("receiverFailed", "scheme receiver: the host's request is not valid JSON: \(error)")
            return
        }
        let stop: StopSignal
        do {
            stop = try StopSignal()
        } catch {
            events.failed("receiverFailed", "scheme receiver: \(error); the process may be out of file descriptors")
            return
        }
        if state.withLock({ state in
            state.stop = stop
            return state.cancelled
        }) {
            stop.raise()
        }
        let failure = NetThread.start(name: "eua-scheme") { [options] in
            HandOffServer.run(options: options, expectedState: parsed.state, stop: stop, events: events)
            stop.close()
        }
        if let failure {
            stop.close()
            events.failed("receiverFailed", "scheme receiver: could not start its thread: \(failure)")
        }
    }

    /// Stops waiting: the socket is closed and removed, then `finished` is said. A no-op once finished.
    func cancel() {
        state.withLock { state -> StopSignal? in
            state.cancelled = true
            return state.stop
        }?.raise()
    }
}
