import FoundationEssentials
import ExternalUserAgentPluginKit
import Synchronization

/// One run of the headless agent: plays its script against one authorization request.
final class HeadlessAgent: PluginComponent {
    private let script: HeadlessScript
    private let work = Mutex<Task<Void, Never>?>(nil)

    init(script: HeadlessScript) {
        self.script = script
    }

    func start(_ request: PluginStartRequest, events: PluginEvents) {
        let parsed: PluginWire.AgentRequest
        do {
            parsed = try request.agentRequest()
        } catch {
            events.failed("presentationFailed", "headless agent: the host's request is not valid JSON: \(error)")
            return
        }
        let script = self.script
        let task = Task {
            await Self.play(script, request: parsed, events: events)
        }
        work.withLock { $0 = task }
    }

    func cancel() {
        work.withLock { $0 }?.cancel()
    }

    private static func play(_ script: HeadlessScript, request: PluginWire.AgentRequest, events: PluginEvents) async {
        if script.mode == .fail {
            events.failed("presentationFailed", "headless agent: scripted failure to present (mode=fail)")
            return
        }
        events.presented()
        PluginHost.log(.debug, "headless agent presented the authorization URL (mode=\(script.mode.rawValue))")
        do {
            if script.delayMilliseconds > 0 {
                try await Task.sleep(for: .milliseconds(script.delayMilliseconds))
            }
            switch script.mode {
            case .never:
                while true { try await Task.sleep(for: .seconds(3600)) }
            case .cancel:
                events.failed("userCanceled", "headless agent: the person closed the browser (scripted, mode=cancel)")
                return
            case .redirect, .error:
                guard let redirectURI = request.redirectURI else {
                    events.failed("presentationFailed", "headless agent: the request has no redirect_uri to deliver to")
                    return
                }
                let callback = try Redirect.callbackURL(script: script, authorizationURL: request.url, redirectURI: redirectURI)
                for _ in 0..<script.count {
                    try await deliver(callback, script: script, events: events)
                }
            case .follow:
                guard let redirectURI = request.redirectURI.flatMap(URL.init(string:)),
                      let authorizationURL = URL(string: request.url) else {
                    events.failed("presentationFailed", "headless agent: follow mode needs a valid URL and redirect_uri")
                    return
                }
                var browser = BrowserFollow(script: script, redirectURI: redirectURI)
                let callback = try await browser.callbackURL(from: authorizationURL)
                PluginHost.log(.debug, "headless agent reached the redirect URI (follow mode)")
                for _ in 0..<script.count {
                    try await deliver(callback, script: script, events: events)
                }
            case .fail:
                return
            }
            events.finished()
        } catch is CancellationError {
            events.finished()
        } catch let error as PluginError {
            events.failed(error.code, error.message)
        } catch {
            events.failed("presentationFailed", "headless agent: \(error)")
        }
    }

    private static func deliver(_ callback: URL, script: HeadlessScript, events: PluginEvents) async throws {
        let overHTTP: Bool =
            switch script.delivery {
            case .http: true
            case .session: false
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
            let status = try await MiniHTTPClient.status(host: host, port: port, target: target)
            PluginHost.log(.debug, "headless agent delivered the redirect over HTTP; the receiver answered \(status)")
        } catch {
            throw PluginError("presentationFailed",
                              "headless agent: could not deliver the redirect to http://\(host):\(port)\(components?.percentEncodedPath ?? ""): \(error); is the receiver listening?")
        }
    }
}
