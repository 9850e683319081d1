// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentPluginKit
import ExternalUserAgentNet

/// One flow's scheme receiver: waits on the scheme's hand-off socket on a thread of its own, hands back the
/// first valid redirect, then removes the socket.
final class SchemeReceiver: PluginComponent {
    private let options: SchemeOptions
    private let thread = ServingThread()

    init(options: SchemeOptions) {
        self.options = options
    }

    func start(_ request: PluginStartRequest, events: PluginEvents) {
        let parsed: PluginABI.ReceiverRequest
        do {
            parsed = try request.receiverRequest()
        } catch {
            events.failed(.receiverFailed, "scheme receiver: the host's request is not valid JSON: \(error)")
            return
        }
        if let failure = thread.start(
            name: "eua-scheme",
            { [options] stop in
                HandOffServer.run(options: options, expectedState: parsed.state, stop: stop, events: events)
            })
        {
            events.failed(.receiverFailed, "scheme receiver: \(failure)")
        }
    }

    /// Stops waiting: the socket is closed and removed, then `finished` is said. A no-op once finished.
    func cancel() {
        thread.cancel()
    }
}
