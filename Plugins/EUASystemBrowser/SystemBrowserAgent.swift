// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentPluginKit
import ExternalUserAgentSystem
import FoundationEssentials

/// Opens the authorization URL in the user's default browser. It hands the URL off and is done:
/// the browser is the user's, not ours, so it never waits for it and cannot close it.
final class SystemBrowserAgent: PluginComponent {
    func start(_ request: PluginStartRequest, events: PluginEvents) {
        let url: String
        do {
            url = try request.agentRequest().url
        } catch {
            events.failed(.presentationFailed, "system browser: the host's request is not valid JSON: \(error)")
            return
        }
        let environment = ProcessEnvironment.current()
        let sandbox = Sandbox.current(environment: environment)
        var failures: [String] = []
        do throws(GIOError) {
            let launched = try GIOLauncher.openWithDefaultHandler(url, sandbox: sandbox)
            PluginHost.log(
                .debug, "system browser: handed the URL to \(launched); it is the user's browser, not ours to close")
            events.presented()
            events.finished()
            return
        } catch {
            failures.append("GIO: \(error)")
            if !error.isNotSupported {
                PluginHost.log(.warning, "system browser: GIO could not launch the default browser: \(error)")
            }
        }
        if let variable = BrowserVariable(environment["BROWSER"]) {
            for command in variable.commands {
                do throws(GIOError) {
                    try GIOLauncher.spawn(BrowserVariable.arguments(command, url: url))
                    PluginHost.log(.debug, "system browser: handed the URL to $BROWSER command '\(command[0])'")
                    events.presented()
                    events.finished()
                    return
                } catch {
                    failures.append("$BROWSER '\(command[0])': \(error)")
                }
            }
        }
        let advice =
            "no default browser could be opened: set one with 'xdg-settings set default-web-browser "
            + "firefox-esr.desktop' or set $BROWSER (for example BROWSER=firefox)"
        events.failed(.presentationFailed, "system browser: \(advice) [\(failures.joined(separator: "; "))]")
    }

    /// Nothing to close: the browser belongs to the user.
    func cancel() {}
}
