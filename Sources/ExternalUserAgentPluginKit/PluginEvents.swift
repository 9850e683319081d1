// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import CExternalUserAgentPlugin
import Synchronization

/// Sends one instance's events to the host, enforcing the ABI's rule on this side too:
/// nothing is sent after the terminal event.
public final class PluginEvents: Sendable {
    private let sink: Sink
    private let ended = Mutex(false)

    init(function: eua_event_fn, context: UnsafeMutableRawPointer?) {
        sink = Sink(function: function, context: context)
    }

    /// The URL is on screen or handed off to the browser.
    public func presented() { send(.presented) }
    /// The agent saw the redirect itself.
    public func redirect(_ url: String) { send(.redirect(url: url)) }
    /// The receiver is ready; `redirectURI` goes into the authorization request.
    public func listening(redirectURI: String) { send(.listening(redirectURI: redirectURI)) }
    /// A valid callback arrived at the receiver.
    public func callback(_ url: String) { send(.callback(url: url)) }
    /// The receiver turned a request away with HTTP `status`; `reason` is fixed text, never request data.
    public func refused(status: Int, reason: String) { send(.refused(status: status, reason: reason)) }
    /// Terminal: done, nothing more will come.
    public func finished() { send(.finished) }
    /// Terminal: failed with `code` and a message saying what to do.
    public func failed(_ code: PluginError.Code, _ message: String) {
        send(.failed(PluginABI.ErrorValue(code: code.rawValue, message: message)))
    }

    /// Terminal: failed with `error`'s code and message.
    public func failed(_ error: PluginError) { failed(error.code, error.message) }

    /// Whether the terminal event has been sent.
    public var hasEnded: Bool { ended.withLock { $0 } }

    private func send(_ event: PluginABI.Event) {
        let allowed = ended.withLock { ended -> Bool in
            guard !ended else { return false }
            if event.isTerminal { ended = true }
            return true
        }
        guard allowed else { return }
        let json = event.jsonText
        json.withCString { sink.function(sink.context, $0) }
    }

    private struct Sink: @unchecked Sendable {
        let function: eua_event_fn
        let context: UnsafeMutableRawPointer?
    }
}
