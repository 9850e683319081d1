// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentPluginKit
import ExternalUserAgentNet

/// One flow's loopback receiver: listens on a thread of its own, hands back the first valid redirect,
/// then closes.
final class LoopbackReceiver: PluginComponent {
    private let options: LoopbackOptions
    private let thread = ServingThread()

    init(options: LoopbackOptions) {
        self.options = options
    }

    func start(_ request: PluginStartRequest, events: PluginEvents) {
        let parsed: PluginABI.ReceiverRequest
        do {
            parsed = try request.receiverRequest()
        } catch {
            events.failed(.receiverFailed, "loopback receiver: the host's request is not valid JSON: \(error)")
            return
        }
        var flowOptions = options
        if flowOptions.path == nil, let path = parsed.path { flowOptions.path = path }
        if let handOff = parsed.handOff, let problem = HandOffPage.problem(with: handOff) {
            events.failed(.receiverFailed, "loopback receiver: \(problem)")
            return
        }
        if let failure = thread.start(
            name: "eua-loopback",
            { [flowOptions] stop in
                LoopbackServer.run(
                    options: flowOptions, expectedState: parsed.state, handOff: parsed.handOff, stop: stop,
                    events: events)
            })
        {
            events.failed(.receiverFailed, "loopback receiver: \(failure)")
        }
    }

    /// Stops the listener: it closes everything, lets a reply being written finish (at most 2 s), then
    /// says `finished`. A no-op once it has finished.
    func cancel() {
        thread.cancel()
    }
}
