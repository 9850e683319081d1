// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentPluginKit
import ExternalUserAgentSystem
import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One flow in a particular browser. An owned instance (ephemeral or headless) is watched: if it exits
/// before the redirect, the flow fails as the user closing the browser; `cancel` ends it and its
/// temporary profile. Otherwise the URL is handed to the (possibly already running) browser, which is
/// the user's: it is never watched or closed.
public final class BrowserAgent: PluginComponent {
    private let browser: InstalledBrowser
    private let options: BrowserOptions
    private let state = Mutex<BrowserProcess?>(nil)
    private let events = Mutex<PluginEvents?>(nil)

    public init(browser: InstalledBrowser, options: BrowserOptions) {
        self.browser = browser
        self.options = options
    }

    public func start(_ request: PluginStartRequest, events: PluginEvents) {
        self.events.withLock { $0 = events }
        let url: String
        do {
            url = try request.agentRequest().url
        } catch {
            events.failed(.presentationFailed, "\(browser.family.id): the host's request is not valid JSON: \(error)")
            return
        }
        let environment = ProcessEnvironment.current()
        let root = options.ownsInstance ? BrowserProcess.makeEphemeralRoot(environment: environment) : nil
        let isRoot = geteuid() == 0
        let plan = LaunchPlan.make(
            family: browser.family, executable: options.executable ?? browser.executable,
            options: options, url: url, ephemeralRoot: root, isRoot: isRoot)
        if isRoot, browser.family.style == .chromium {
            PluginHost.log(
                .debug,
                "\(browser.family.id): running as root, so --no-sandbox is added (Chromium refuses root otherwise)")
        }
        let id = browser.family.id
        let owned = plan.owned
        let started = ProcessSpawn.monotonicSeconds()
        let processBox = Mutex<BrowserProcess?>(nil)
        do {
            let process = try BrowserProcess(plan: plan) { status, terminating in
                guard owned, !terminating else { return }
                // The rest of its process group and its temporary profile go before the flow is failed,
                // so nothing of this run outlives the session.
                processBox.withLock { $0 }?.terminate(grace: 0)
                let code = (status & 0x7f) == 0 ? "exit status \((status >> 8) & 0xff)" : "signal \(status & 0x7f)"
                if ProcessSpawn.monotonicSeconds() - started < 1.5, (status >> 8) & 0xff != 0 {
                    events.failed(
                        .presentationFailed,
                        "\(id) exited right after starting (\(code)); without a display "
                            + "only headless=true can work")
                } else {
                    events.failed(.userCanceled, "the browser (\(id)) was closed (\(code)) before the sign-in finished")
                }
            }
            state.withLock { $0 = process }
            processBox.withLock { $0 = process }
            if owned {
                PluginHost.log(.debug, "\(id): started an owned instance, pid \(process.pid)")
                events.presented()
            } else {
                process.forget()
                PluginHost.log(
                    .debug,
                    "\(id): handed the URL to the browser (pid \(process.pid)); it may go to a "
                        + "running instance, which is the user's and not ours to close")
                events.presented()
                events.finished()
            }
        } catch {
            if let root { BrowserProcess.removeTree(root) }
            events.failed(.presentationFailed, "\(id): \(error)")
        }
    }

    public func cancel() {
        let process = state.withLock { $0 }
        let events = self.events.withLock { $0 }
        guard let process, options.ownsInstance else {
            events?.finished()
            return
        }
        // A throw-away profile needs no graceful shutdown; a real one gets time to save itself.
        let grace = options.profile == nil ? 0.5 : 3
        PluginThread.detach {
            process.terminate(grace: grace)
            PluginHost.log(
                .debug, "\(self.browser.family.id): ended the owned instance and removed its temporary profile")
            events?.finished()
        }
    }
}
