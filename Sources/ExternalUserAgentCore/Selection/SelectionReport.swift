// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Logging

/// Everything selection decided: each candidate's verdict, the chosen one, and the configuration used.
public struct SelectionReport: Sendable {
    /// Every candidate, in the order they were found, with its verdict.
    public var verdicts: [CandidateVerdict]
    /// The configuration the rules read.
    public var configuration: Configuration
    /// Problems with the candidates themselves: two with one id; a `preference`, `allow` or `deny` entry or an
    /// `[agent-options.<name>]` table that names no candidate.
    public var warnings: [String]

    /// Every warning an app should show or log: the configuration's (unknown keys, refused files, with
    /// file:line) and then the selection's (``warnings``). ``AgentSelection/select(catalog:registered:code:sources:logger:)``
    /// also logs each of them.
    public var allWarnings: [String] { configuration.warnings.map(\.description) + warnings }

    /// The winner's verdict, if any candidate survived.
    public var chosen: CandidateVerdict? { verdicts.first { $0.selected } }

    /// The `noAgentAvailable` error for a report with no winner: every candidate, why it lost, what to change.
    public var error: ExternalUserAgentError {
        var lines = ["no user agent can be selected;"]
        if let named = configuration.namedAgent,
            !verdicts.contains(where: { $0.candidate.descriptor.answers(to: named) })
        {
            return ExternalUserAgentError(
                .noAgentAvailable,
                "no agent has the id or family '\(named)'; the agents here are: "
                    + (verdicts.isEmpty
                        ? "none (no plugin offers an agent)"
                        : UnmatchedAgentNames.names(verdicts.map(\.candidate.descriptor)))
                    + ". Name one of them",
                remedies: [.chooseAgent, .listAgents])
        }
        if verdicts.isEmpty {
            lines[0] +=
                " there are no candidates: no plugin offers an agent and the app registered none. "
                + "Build or install the agent plugins, point EUA_PLUGIN_PATH at them, or register an agent in code"
        } else {
            lines[0] += " every candidate lost:"
            for verdict in verdicts {
                let descriptor = verdict.candidate.descriptor
                lines.append(
                    "  - \(descriptor.id) (\(descriptor.kind), \(verdict.candidate.origin)): "
                        + verdict.reasons.joined(separator: "; "))
            }
            lines.append("Change what each reason names (in code, the environment, or the config file it cites).")
        }
        return ExternalUserAgentError(
            .noAgentAvailable, lines.joined(separator: "\n"),
            remedies: verdicts.isEmpty ? [.listAgents] : [.explainSelection])
    }
}

/// The agent selection chose, with its options and the report of why.
public struct SelectedAgent: Sendable {
    /// The winner.
    public var candidate: AgentCandidate
    /// Its options from the configuration (`agent-options.<id>`), each from its strongest layer.
    public var options: [String: String]
    /// Why it won and why every other candidate lost.
    public var report: SelectionReport

    /// The agent, ready for one session, with ``options``.
    public func makeAgent() -> any ExternalUserAgent {
        candidate.makeAgent(options: options)
    }
}

extension SelectionReport {
    /// Logs every warning (``allWarnings``) at `warning` level, so an app sees what the `eua` commands print.
    public func log(to logger: Logger) {
        for warning in allWarnings { logger.warning("\(warning)") }
    }
}
