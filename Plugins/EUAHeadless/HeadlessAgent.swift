// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import FoundationEssentials
import ExternalUserAgentPluginKit
import ExternalUserAgentSystem
import ExternalUserAgentNet
import Synchronization

/// One run of the headless agent: plays its script against one authorization request, on a thread of its
/// own (its requests block, each with a deadline); `cancel()` ends any wait at once.
final class HeadlessAgent: PluginComponent {
    private let script: HeadlessScript
    private let state = Mutex(State())

    private struct State {
        var stop: StopSignal?
        var cancelled = false
    }

    init(script: HeadlessScript) {
        self.script = script
    }

    func start(_ request: PluginStartRequest, events: PluginEvents) {
        let parsed: PluginABI.AgentRequest
        do {
            parsed = try request.agentRequest()
        } catch {
            events.failed(.presentationFailed, "headless agent: the host's request is not valid JSON: \(error)")
            return
        }
        let stop: StopSignal
        do {
            stop = try StopSignal()
        } catch {
            events.failed(.presentationFailed, "headless agent: \(error); the process may be out of file descriptors")
            return
        }
        if state.withLock({ state in
            state.stop = stop
            return state.cancelled
        }) {
            stop.raise()
        }
        let script = self.script
        do {
            _ = try BlockingCall.start(name: "eua-headless") {
                Self.play(script, request: parsed, events: events, stop: stop)
                stop.close()
            }
        } catch {
            stop.close()
            events.failed(.presentationFailed, "headless agent: could not start its thread: \(error)")
        }
    }

    func cancel() {
        state.withLock { state -> StopSignal? in
            state.cancelled = true
            return state.stop
        }?.raise()
    }

    private static func play(
        _ script: HeadlessScript, request: PluginABI.AgentRequest, events: PluginEvents,
        stop: StopSignal
    ) {
        if script.mode == .fail {
            events.failed(.presentationFailed, "headless agent: scripted failure to present (mode=fail)")
            return
        }
        events.presented()
        PluginHost.log(.debug, "headless agent presented the authorization URL (mode=\(script.mode.rawValue))")
        do {
            if script.delayMilliseconds > 0, stop.wait(until: .now + .milliseconds(script.delayMilliseconds)) {
                throw NetworkError.stopped
            }
            switch script.mode {
            case .never:
                _ = stop.wait(until: nil)
                throw NetworkError.stopped
            case .cancel:
                events.failed(.userCanceled, "headless agent: the person closed the browser (scripted, mode=cancel)")
                return
            case .redirect, .error:
                guard let redirectURI = request.redirectURI else {
                    events.failed(.presentationFailed, "headless agent: the request has no redirect_uri to deliver to")
                    return
                }
                let callback = try Redirect.callbackURL(
                    script: script, authorizationURL: request.url, redirectURI: redirectURI)
                for _ in 0..<script.count {
                    try deliver(callback, script: script, events: events, stop: stop)
                }
            case .follow:
                guard let redirectURI = request.redirectURI.flatMap(URL.init(string:)),
                    let authorizationURL = URL(string: request.url)
                else {
                    events.failed(.presentationFailed, "headless agent: follow mode needs a valid URL and redirect_uri")
                    return
                }
                var browser = try BrowserFollow(script: script, redirectURI: redirectURI, stop: stop)
                let callback = try browser.callbackURL(from: authorizationURL)
                PluginHost.log(.debug, "headless agent reached the redirect URI (follow mode)")
                for _ in 0..<script.count {
                    try deliver(callback, script: script, events: events, stop: stop)
                }
            case .fail:
                return
            }
            events.finished()
        } catch let error as NetworkError where error.kind == .stopped {
            events.finished()
        } catch let error as PluginError {
            events.failed(error.code, error.message)
        } catch {
            events.failed(.presentationFailed, "headless agent: \(error)")
        }
    }

    private static func deliver(_ callback: URL, script: HeadlessScript, events: PluginEvents, stop: StopSignal) throws
    {
        if script.delivery == .desktop {
            try DesktopHandOff.open(callback.absoluteString, stop: stop)
            return
        }
        let overHTTP: Bool =
            switch script.delivery {
            case .http: true
            case .session, .desktop: false
            case .auto: callback.scheme == "http"
            }
        guard overHTTP else {
            events.redirect(callback.absoluteString)
            return
        }
        let components = URLComponents(url: callback, resolvingAgainstBaseURL: false)
        let host = components?.host ?? "127.0.0.1"
        let port = components?.port ?? 80
        var target = components?.percentEncodedPath ?? "/"
        if target.isEmpty { target = "/" }
        if let query = components?.percentEncodedQuery { target += "?" + query }
        do {
            let status = try MiniHTTPClient.status(host: host, port: port, target: target, stop: stop)
            PluginHost.log(.debug, "headless agent delivered the redirect over HTTP; the receiver answered \(status)")
        } catch let error as NetworkError where error.kind == .stopped {
            throw error
        } catch {
            throw PluginError(
                .presentationFailed,
                "headless agent: could not deliver the redirect to http://\(host):\(port)\(components?.percentEncodedPath ?? ""): \(error); is the receiver listening?"
            )
        }
    }
}
