// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Logging

/// Chooses the user agent for a sign-in: the one entry point `eua login`, `eua open` and apps use.
///
/// The rules, in order, each leaving a reason on every candidate it removes:
/// 1. `embeddedWebView` agents are never selectable, whatever any layer says (RFC 8252 §8.12);
/// 2. `testDouble` agents only when `allow-test-agents` is true (code, `EUA_ALLOW_TEST_AGENTS=1`, a config
///    file) — and a managed file that pins it false cannot be overruled;
/// 3. the `allow` and `deny` lists (agent id, and a version range the agent's version must be in);
/// 4. availability on this machine, as the plugin (or the app) reports it;
/// 5. the `preference` order from the strongest layer that sets one (`*` stands for every agent not
///    named, best kind first: external browser, in-app browser tab, test agent, manual); the first survivor wins.
///
/// ```swift
/// let catalog = await PluginLoader().load()
/// let selected = try AgentSelection.select(catalog: catalog, code: CodeConfiguration(preference: ["firefox", "*"]))
/// let agent = selected.makeAgent()
/// ```
public enum AgentSelection {
    /// Selects from `catalog`'s agents and `registered` ones, with configuration read from `sources`
    /// and `code` as the code layer. Throws `configurationInvalid` for a broken configuration, and
    /// `noAgentAvailable` (listing every candidate and why it lost) when none survives. Every warning
    /// (``SelectionReport/allWarnings``) goes to `logger` and stays in the report.
    public static func select(
        catalog: PluginCatalog, registered: [AgentCandidate] = [],
        code: CodeConfiguration = CodeConfiguration(),
        sources: ConfigurationSources = .standard(),
        logger: Logger = Logger(label: "ExternalUserAgent.selection")
    ) throws(ExternalUserAgentError) -> SelectedAgent {
        let configuration = try Configuration.load(sources: sources, code: code)
        return try select(
            candidates: candidates(catalog: catalog, registered: registered), configuration: configuration,
            logger: logger)
    }

    /// Selects from `candidates` under `configuration`; throws `noAgentAvailable` when none survives. Every
    /// warning (``SelectionReport/allWarnings``) goes to `logger` and stays in the report.
    public static func select(
        candidates: [AgentCandidate], configuration: Configuration,
        logger: Logger = Logger(label: "ExternalUserAgent.selection")
    ) throws(ExternalUserAgentError) -> SelectedAgent {
        let report = evaluate(candidates: candidates, configuration: configuration)
        report.log(to: logger)
        guard let chosen = report.chosen else { throw report.error }
        return SelectedAgent(
            candidate: chosen.candidate, options: configuration.options(for: chosen.candidate.descriptor),
            report: report)
    }

    /// The candidates: agents registered in code first, then the plugins' agents (a plugin agent whose id
    /// an app agent already has is left out).
    public static func candidates(catalog: PluginCatalog, registered: [AgentCandidate] = []) -> [AgentCandidate] {
        let taken = Set(registered.map(\.descriptor.id))
        return registered
            + catalog.agents.filter { !taken.contains($0.descriptor.id) }.map(AgentCandidate.init(plugin:))
    }

    /// Applies every rule and returns the verdicts without throwing (what `eua explain` prints).
    public static func evaluate(candidates: [AgentCandidate], configuration: Configuration) -> SelectionReport {
        var verdicts = candidates.map { CandidateVerdict(candidate: $0, selected: false, removedBy: nil, reasons: []) }
        var warnings: [String] = []
        var seen = Set<String>()
        for candidate in candidates where !seen.insert(candidate.descriptor.id).inserted {
            warnings.append(
                "two candidates have the id '\(candidate.descriptor.id)'; only the first can be chosen by id")
        }
        let testAgents = configuration[.allowTestAgents]
        let allowSetting = configuration[.allow]
        let denySetting = configuration[.deny]
        let allow = configuration.allow
        let deny = configuration.deny

        for index in verdicts.indices {
            let descriptor = verdicts[index].candidate.descriptor
            var removed: [(SelectionRule, String)] = []

            if descriptor.kind == .embeddedWebView {
                removed.append(
                    (
                        .noEmbeddedWebViews,
                        "refused: an embedded web view is never selectable, whatever code, configuration, environment or a "
                            + "managed file says: RFC 8252 §8.12 forbids native apps from using embedded user agents for "
                            + "authorization requests; use an external browser agent"
                    ))
            }

            if descriptor.kind == .testDouble {
                if let testAgents, testAgents.value == .bool(true) {
                    verdicts[index].reasons.append("test agents are allowed by \(testAgents.origin)")
                } else if let testAgents, testAgents.origin.layer == .managed {
                    removed.append(
                        (
                            .testAgents,
                            "refused as a test agent (testDouble): the managed file \(testAgents.origin.location) pins "
                                + "allow-test-agents = false, and no layer can allow test agents"
                        ))
                } else {
                    let current = testAgents.map { " (allow-test-agents is false, from \($0.origin))" } ?? ""
                    removed.append(
                        (
                            .testAgents,
                            "refused as a test agent (testDouble): test agents are selectable only when allowed\(current); "
                                + "allow them in code (allowTestAgents: true), with EUA_ALLOW_TEST_AGENTS=1, or with "
                                + "allow-test-agents = true in a config file"
                        ))
                }
            }

            let named = configuration.namedAgent.map(descriptor.answers(to:)) ?? false
            let unknownVersion =
                descriptor.version.flatMap(BrowserVersion.init) == nil
                ? " (its version is \(descriptor.version.map { "'\($0)', not a version number" } ?? "unknown"), and a "
                    + "version range never matches an unknown version)" : ""
            if let hit = deny.first(where: { $0.matches(descriptor) }),
                !named || denySetting?.origin.layer == .managed
            {
                removed.append(
                    (
                        .allowDeny,
                        "denied by the deny entry '\(hit)' from \(denySetting.map { "\($0.origin)" } ?? "configuration"); "
                            + "remove it there to allow this agent"
                    ))
            }
            if !allow.isEmpty, !allow.contains(where: { $0.matches(descriptor) }),
                !named || allowSetting?.origin.layer == .managed
            {
                let ranged = allow.contains { ($0.id == "*" || descriptor.answers(to: $0.id)) && $0.versions != nil }
                removed.append(
                    (
                        .allowDeny,
                        "not on the allow list [\(allow.map(\.description).joined(separator: ", "))] from "
                            + "\(allowSetting.map { "\($0.origin)" } ?? "configuration")"
                            + (ranged
                                ? unknownVersion.isEmpty
                                    ? " (version \(descriptor.version ?? "?") is outside its range)"
                                    : unknownVersion : "")
                            + "; add '\(descriptor.id)' to it to allow this agent"
                    ))
            }

            if !verdicts[index].candidate.available {
                let why = verdicts[index].candidate.reasons.joined(separator: "; ")
                if named {
                    verdicts[index].reasons.append(
                        "its plugin says it cannot run here (\(why)); used anyway because it was named explicitly")
                } else {
                    removed.append((.availability, "not available on this machine: \(why)"))
                }
            }

            verdicts[index].reasons += removed.map(\.1)
            verdicts[index].removedBy = removed.map(\.0).min()
        }

        let preference = configuration.preference
        let preferenceText =
            "the preference order [\(preference.joined(separator: ", "))] from "
            + (configuration[.preference].map { "\($0.origin)" } ?? "built-in defaults")
        func rank(_ verdict: CandidateVerdict) -> (Int, Int)? {
            if let position = preference.firstIndex(where: verdict.candidate.descriptor.answers(to:)) {
                return (position, 0)
            }
            if let star = preference.firstIndex(of: "*") { return (star, kindRank(verdict.candidate.descriptor.kind)) }
            return nil
        }
        var survivors: [(index: Int, rank: (Int, Int))] = []
        for index in verdicts.indices where verdicts[index].removedBy == nil {
            if let position = rank(verdicts[index]) {
                survivors.append((index, position))
            } else {
                verdicts[index].removedBy = .preference
                verdicts[index].reasons.append(
                    "not in \(preferenceText), which has no '*'; add '\(verdicts[index].id)' (or '*') to it to allow this agent"
                )
            }
        }
        survivors.sort { ($0.rank.0, $0.rank.1, $0.index) < ($1.rank.0, $1.rank.1, $1.index) }
        if let winner = survivors.first {
            verdicts[winner.index].selected = true
            let how =
                preference.contains(where: verdicts[winner.index].candidate.descriptor.answers(to:))
                ? "named at position \(winner.rank.0 + 1) of" : "matched by '*' (best kind first) in"
            verdicts[winner.index].reasons.append(
                "chosen: passed every rule and is the first survivor, \(how) \(preferenceText)")
            // A pinned agent runs the managed file's program: say what of the person's own settings is not used.
            warnings += configuration.lockedOut(for: verdicts[winner.index].candidate.descriptor).map(\.description)
            for loser in survivors.dropFirst() {
                verdicts[loser.index].reasons.append(
                    "passed every rule, but '\(verdicts[winner.index].id)' comes before it in \(preferenceText)")
            }
        }
        warnings += UnmatchedAgentNames.warnings(
            candidates: candidates.map(\.descriptor), configuration: configuration,
            preferenceText: preferenceText)
        return SelectionReport(verdicts: verdicts, configuration: configuration, warnings: warnings)
    }

    /// The order `*` gives kinds: external browser, in-app browser tab, test agent, manual.
    static func kindRank(_ kind: AgentKind) -> Int {
        switch kind {
        case .externalBrowser: 0
        case .inAppBrowserTab: 1
        case .testDouble: 2
        case .manual: 3
        case .embeddedWebView: 4
        }
    }
}
