// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore

/// One way to get the person signed in.
public enum SignInStep: String, Sendable, CaseIterable, CustomStringConvertible {
    /// A browser agent (external browser, in-app tab, or an allowed test agent) with the code flow.
    case browser
    /// The device authorization grant (RFC 8628), when the server offers it.
    case device
    /// The manual agent: the URL on screen, the `ssh -L` line on SSH, the result pasted back.
    case manual

    public var description: String { rawValue }
}

/// Which way a sign-in goes, and why every other step was skipped: the data of `eua explain`'s chain.
public struct SignInPlan: Sendable {
    /// One step of the chain and what became of it.
    public struct Step: Sendable {
        /// What became of a step when the chain was planned.
        public enum Status: String, Sendable {
            /// This step is the one used.
            case chosen
            /// Considered, and not possible here (``Step/reason`` says why).
            case skipped
            /// Cannot be decided without the server's metadata (no issuer known yet).
            case unknown
            /// Not considered: an earlier step was chosen, or another step was forced.
            case notReached
        }

        /// Which way in this is.
        public var step: SignInStep
        /// Whether the step was chosen, skipped, undecided or not reached.
        public var status: Status
        /// The agent this step would use (browser and manual steps), when one survived selection.
        public var agent: AgentCandidate?
        /// The agent's options from the configuration.
        public var options: [String: String]
        /// Why the step was chosen or skipped, in plain words.
        public var reason: String
    }

    /// The steps in the order tried (the configured order; a step left out of it is not listed).
    public var steps: [Step]
    /// The selection report behind the agent steps (for every candidate's verdict).
    public var report: SelectionReport

    /// The step that is used, if any.
    public var chosen: Step? { steps.first { $0.status == .chosen } }

    /// The `noAgentAvailable` error for a plan with no chosen step: each step and why it was skipped, and what
    /// can still work. Under a managed `preference` or `allow`, naming another agent changes nothing, so the advice
    /// is what the pin leaves open instead.
    public var error: ExternalUserAgentError {
        var lines = ["no way to sign in is possible here; each step of the chain was skipped:"]
        for step in steps { lines.append("  - \(step.step): \(step.reason)") }
        let configuration = report.configuration
        let pins = [configuration[.preference], configuration[.allow]].compactMap { $0 }.filter {
            $0.origin.layer == .managed
        }
        guard !pins.isEmpty else {
            lines.append("Name an agent, or change flow-order in the configuration.")
            return ExternalUserAgentError(
                .noAgentAvailable, lines.joined(separator: "\n"),
                remedies: [.chooseAgent, .explainSelection])
        }
        let pinned = pins.map { "\($0.key) = \($0.value) (\($0.origin.location))" }.joined(separator: " and ")
        let device = steps.first { $0.step == .device }
        let deviceOpen = device.map { $0.status != .skipped } ?? true
        lines.append(
            "The managed file pins \(pinned), so naming another agent changes nothing. What still works: "
                + "make an agent it allows available here (its reason above says what is missing)"
                + (deviceOpen
                    ? "; sign in with the device authorization grant (RFC 8628), if the provider offers it" : "")
                + "; or ask the administrator to change that file.")
        return ExternalUserAgentError(
            .noAgentAvailable, lines.joined(separator: "\n"),
            remedies: (deviceOpen ? [.useDeviceFlow] : []) + [.explainSelection])
    }
}

/// The automatic choice between a browser agent, the device authorization grant and the manual agent.
///
/// In the configured `flow-order` (default browser → device → manual), the first possible step wins:
/// `browser` when selection (`AgentSelection`, every rule) leaves a non-manual agent; `device` when the
/// server's metadata has a `device_authorization_endpoint`; `manual` when selection leaves a manual agent.
/// An agent named in code (`--agent`, `CodeConfiguration.namedAgent`) forces the step of its kind,
/// and `forced` forces one step (`--flow device`).
public enum SignInChain {
    /// Plans a sign-in. `service` is the server's configuration, `nil` when it is not known yet
    /// (the device step is then `unknown`, and later steps are still evaluated).
    public static func plan(
        candidates: [AgentCandidate], configuration: Configuration,
        service: ServiceConfiguration?, forced: SignInStep? = nil
    ) -> SignInPlan {
        let fullReport = AgentSelection.evaluate(candidates: candidates, configuration: configuration)
        var order = configuration.flowOrder.compactMap(SignInStep.init(rawValue:))
        let origin = configuration[.flowOrder].map { "flow-order from \($0.origin)" } ?? "the default flow-order"

        var forcedStep = forced
        var forcedBy = forced.map { "the flow \($0) was asked for" }
        if forcedStep == nil, let named = configuration.namedAgent {
            let kind = candidates.first { $0.descriptor.answers(to: named) }?.descriptor.kind
            forcedStep = kind == .manual ? .manual : .browser
            forcedBy = "the agent '\(named)' was named explicitly"
        }
        if let forcedStep, !order.contains(forcedStep) { order.append(forcedStep) }

        var steps: [SignInPlan.Step] = []
        var decided = false
        for step in order {
            func add(
                _ status: SignInPlan.Step.Status, _ reason: String, agent: AgentCandidate? = nil,
                options: [String: String] = [:]
            ) {
                steps.append(
                    SignInPlan.Step(step: step, status: status, agent: agent, options: options, reason: reason))
                if status == .chosen { decided = true }
            }
            if decided {
                add(
                    .notReached,
                    "not needed: the \(steps.first { $0.status == .chosen }!.step) step comes first in \(origin)")
                continue
            }
            if let forcedStep, let forcedBy, step != forcedStep {
                add(.notReached, "not tried: \(forcedBy), which uses the \(forcedStep) step")
                continue
            }
            switch step {
            case .browser, .manual:
                let wantManual = step == .manual
                let pool = candidates.filter { ($0.descriptor.kind == .manual) == wantManual }
                let report = AgentSelection.evaluate(candidates: pool, configuration: configuration)
                if let winner = report.chosen {
                    // A managed pin can overrule the named agent: the reason then says who won, and why.
                    let overruled =
                        configuration.namedAgent.map { !winner.candidate.descriptor.answers(to: $0) } ?? false
                    let why =
                        forcedBy.map {
                            overruled
                                ? "\($0), but '\(winner.id)' was chosen instead: \(winner.reasons.last ?? "it passed every rule")"
                                : $0
                        }
                        ?? (wantManual
                            ? "no earlier step in \(origin) was possible, and the manual agent '\(winner.id)' is available"
                            : "the browser agent '\(winner.id)' passed every selection rule")
                    add(
                        .chosen, why, agent: winner.candidate,
                        options: configuration.options(for: winner.candidate.descriptor))
                } else if pool.isEmpty {
                    add(
                        .skipped,
                        wantManual
                            ? "no manual agent is installed (libEUAManual.so)"
                            : "no browser agent is installed")
                } else {
                    let losers = report.verdicts.map { "\($0.id): \($0.reasons.last ?? "removed")" }
                    add(
                        .skipped,
                        (wantManual ? "no manual agent can be used: " : "no browser agent is available: ")
                            + losers.joined(separator: "; "))
                }
            case .device:
                if let service {
                    if let endpoint = service.deviceAuthorizationEndpoint {
                        add(
                            .chosen,
                            forcedBy ?? "no browser agent is available before it in \(origin), and the server "
                                + "advertises device_authorization_endpoint \(endpoint.absoluteString)")
                    } else {
                        add(
                            .skipped,
                            "the server \(service.issuer) advertises no device_authorization_endpoint "
                                + "(RFC 8628) in its metadata")
                    }
                } else {
                    add(
                        .unknown,
                        "used only when the server's metadata advertises device_authorization_endpoint; "
                            + "give the issuer to know")
                }
            }
        }
        for step in SignInStep.allCases where !order.contains(step) {
            steps.append(
                SignInPlan.Step(
                    step: step, status: .skipped, agent: nil, options: [:],
                    reason: "left out of \(origin)"))
        }
        return SignInPlan(steps: steps, report: fullReport)
    }
}
