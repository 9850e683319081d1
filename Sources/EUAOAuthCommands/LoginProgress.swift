// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUACommandSupport
import ExternalUserAgentCore
import ExternalUserAgentOAuth
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What `eua login` shows on stderr while ``SignInFlow`` runs: the device grant's line and codes, the
/// waiting display for the step chosen, and a count of the requests turned away at the redirect URI.
/// The browser and manual steps' waiting line starts only once the agent has shown the URL (`presented`):
/// a sign-in that ends before that (a refused push, a refused option) never says it is waiting for a browser.
final class LoginProgress: Sendable {
    private let timeout: Duration
    private let display = Mutex<WaitingDisplay?>(nil)
    private let refused = Atomic<Int>(0)
    private let pushedRequest = Atomic<Bool>(false)

    init(timeout: Duration) {
        self.timeout = timeout
    }

    /// Requests to the redirect URI that were turned away so far.
    var refusedCallbacks: Int { refused.load(ordering: .relaxed) }

    /// Whether the authorization request was pushed (RFC 9126).
    var pushed: Bool { pushedRequest.load(ordering: .relaxed) }

    /// The hooks that feed this display.
    var hooks: SignInFlow.Hooks {
        SignInFlow.Hooks(
            stepChosen: { [self] step in chosen(step) },
            progress: { [self] progress in
                switch progress {
                case .callbackRefused: refused.add(1, ordering: .relaxed)
                case .authorizationRequestPushed: pushedRequest.store(true, ordering: .relaxed)
                case .presented: display.withLock { $0 }?.start()
                default: break
                }
            },
            deviceCodes: { [self] codes in
                guard let waiting = display.withLock({ $0 }) else { return }
                waiting.note(codes.instructions)
                waiting.start()
            },
            devicePoll: { [self] event in
                guard let waiting = display.withLock({ $0 }), waiting.style == .plain,
                    case .slowDown(let interval) = event
                else { return }
                waiting.note(
                    "eua login: the server asked to poll more slowly (every \(interval.components.seconds) s)\n")
            })
    }

    /// Stops and clears the waiting display.
    func stop() {
        display.withLock { $0 }?.stop()
    }

    /// What the waiting line says the sign-in waits for, in words that fit the step and the agent's kind: only a
    /// browser agent waits "in the browser".
    static func waitingLabel(_ step: SignInPlan.Step) -> String {
        guard step.step != .manual else { return "Waiting for the sign-in (the redirect or a pasted URL)" }
        let agent = step.agent?.descriptor
        switch agent?.kind {
        case .testDouble?: return "Waiting for the test agent '\(agent?.id ?? "?")' to finish the sign-in"
        case .inAppBrowserTab?: return "Waiting for the sign-in in the browser tab"
        case .manual?: return "Waiting for the sign-in (the redirect or a pasted URL)"
        default: return "Waiting for the sign-in in the browser"
        }
    }

    private func chosen(_ step: SignInPlan.Step) {
        switch step.step {
        case .device:
            Output.errorLine("eua login: \(step.reason); signing in with a code (RFC 8628 device authorization).")
            display.withLock { $0 = WaitingDisplay(label: "Waiting for the code to be entered", timeout: timeout) }
        case .browser, .manual:
            // A spinner would overwrite what the person types when the manual agent reads a pasted URL
            // from the terminal: plain lines then.
            let typing = step.step == .manual && isatty(0) == 1
            let waiting = WaitingDisplay(label: Self.waitingLabel(step), timeout: timeout, style: typing ? .plain : nil)
            display.withLock { $0 = waiting }
        }
    }
}
