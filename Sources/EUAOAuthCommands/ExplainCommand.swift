// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ArgumentParser
import EUACommandSupport
import ExternalUserAgentCore
import ExternalUserAgentOAuth
import ExternalUserAgentSystem
import Logging
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `eua explain`: which agent selection would choose, why every other candidate lost, and which
/// layer decided each setting.
///
/// Contract: `--json` prints one object `{"chosen","candidates":[{"id","kind","selected","reasons","options"}],
/// "config":[{"file","layer","status"}],"settings":[…],"ignored":[{…,"pinnedBy","reason"}],
/// "locked":[{"agent","options","userOptions","pinnedBy"}],"warnings":[…]}`. A broken configuration makes both forms
/// exit 1 with `file:line` and the key on stderr.
package struct ExplainCommand: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract:
            "Show which user agent would be selected, why each candidate won or lost, and where each setting came from.",
        discussion: """
            Configuration layers, weakest first: built-in defaults, system ($XDG_CONFIG_DIRS/eua/config.toml), \
            user ($XDG_CONFIG_HOME/eua/config.toml), environment (EUA_AGENT, EUA_AGENT_OPTIONS, \
            EUA_ALLOW_TEST_AGENTS, BROWSER), code (--agent, --agent-option). The managed file \
            (/etc/eua/managed.toml, or EUA_MANAGED_CONFIG) pins every key it sets, and an agent it names in \
            preference or allow or gives an [agent-options.<name>] table runs as that file says: the agent's \
            executable, extra-args and headless options come from it alone, unless its user-options lists them \
            (the Locked section shows each pinned agent, the file and line, and what was ignored). \
            Exit status: 0 (also when no agent can be chosen: chosen is null), 1 broken configuration.
            """
    )

    @Flag(help: "Print one JSON object (see the discussion above).")
    var json = false

    @Option(help: "Prefer this agent, as an app would in code (still subject to the policy and the managed file).")
    var agent: String?

    @Option(name: .customLong("agent-option"), help: "An option for --agent, as name=value; repeat for more.")
    var agentOptions: [String] = []

    @Option(
        help:
            "The issuer whose metadata decides the device step of the chain (fetched; without it that step is 'unknown')."
    )
    var issuer: String?

    @Option(
        help: ArgumentHelp(
            "Force one step of the chain, as 'eua login --flow' does: browser, device or manual.", valueName: "step"))
    var flow: String?

    package func validate() throws {
        if let flow, SignInStep(rawValue: flow) == nil {
            throw ValidationError("--flow must be browser, device or manual")
        }
        if !agentOptions.isEmpty && agent == nil {
            throw ValidationError("--agent-option needs --agent to say which agent the options are for")
        }
        for option in agentOptions where !option.contains("=") || option.hasPrefix("=") {
            throw ValidationError("--agent-option '\(option)': expected name=value")
        }
    }

    package func run() throws {
        let environment = ProcessEnvironment.current()
        CommandLogging.bootstrap(environment: environment)
        var code = CodeConfiguration.commandLine
        if let agent {
            var options: [String: String] = [:]
            for option in agentOptions {
                let parts = option.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                options[String(parts[0])] = String(parts[1])
            }
            code.name(agent, options: options)
        }
        let configuration: Configuration
        do {
            configuration = try Configuration.load(sources: .standard(environment: environment), code: code)
        } catch {
            Output.errorLine("eua explain: \(error.commandLineMessage)")
            Output.exit(1)
        }
        let catalog = CommandCatalog.loader(environment: environment).load()
        let report = AgentSelection.evaluate(
            candidates: AgentSelection.candidates(catalog: catalog),
            configuration: configuration)
        let candidates = AgentSelection.candidates(catalog: catalog)
        var service: ServiceConfiguration?
        var issuerProblem: String?
        if let issuer {
            let logger = Logger(label: "eua.explain")
            do {
                service = try Blocking.run { try await Discovery(logger: logger).configuration(issuer: issuer) }
            } catch let error as ExternalUserAgentError {
                issuerProblem = "the metadata of \(issuer) could not be read: \(error.commandLineMessage)"
            }
        }
        let plan = SignInChain.plan(
            candidates: candidates, configuration: configuration, service: service,
            forced: flow.flatMap(SignInStep.init(rawValue:)))
        var explanation = Explanation(report)
        explanation.add(plan, issuerProblem: issuerProblem)
        if json {
            Output.json(try explanation.jsonText())
        } else {
            Output.lines(explanation.table())
        }
    }
}

/// The `eua explain` output; its JSON keys are a contract other tools read.
struct Explanation: Encodable {
    struct Candidate: Encodable {
        var id: String
        var kind: String
        var version: String?
        var origin: String
        var selected: Bool
        var removedBy: String?
        var reasons: [String]
        /// The options the agent would be started with (locked ones from the managed file only).
        var options: [String: String]
    }

    struct File: Encodable {
        var file: String
        var layer: String
        var status: String
    }

    struct Setting: Encodable {
        var key: String
        var value: String
        var layer: String
        var source: String
    }

    struct Ignored: Encodable {
        var key: String
        var value: String
        var layer: String
        var source: String
        var pinnedBy: String
        /// Why, in words: the key is pinned, or the managed file pins the agent and with it this option.
        var reason: String
    }

    /// An agent the managed file pins, and the options only that file sets for it.
    struct Locked: Encodable {
        var agent: String
        var options: [String]
        var userOptions: [String]
        var pinnedBy: String
    }

    /// One step of the sign-in chain (`eua login`'s automatic choice).
    struct ChainStep: Encodable {
        var step: String
        /// `chosen`, `skipped`, `unknown` or `notReached`.
        var status: String
        var agent: String?
        var reason: String
    }

    var chosen: String?
    /// The step `eua login` would use (null when none, or when it depends on an unknown server).
    var flow: String?
    var chain: [ChainStep] = []
    var candidates: [Candidate]
    var config: [File]
    var settings: [Setting]
    var ignored: [Ignored]
    var locked: [Locked]
    var warnings: [String]
    /// Why the chain has no step to name, for the text form; not part of the JSON.
    var undecided = "undecided without the server's metadata (give --issuer)"

    init(_ report: SelectionReport) {
        let configuration = report.configuration
        chosen = report.chosen?.id
        candidates = report.verdicts.map {
            Candidate(
                id: $0.id, kind: $0.candidate.descriptor.kind.rawValue, version: $0.candidate.descriptor.version,
                origin: $0.candidate.origin, selected: $0.selected, removedBy: $0.removedBy?.description,
                reasons: $0.reasons, options: configuration.options(for: $0.candidate.descriptor))
        }
        config = configuration.files.map {
            File(file: $0.path, layer: $0.layer.description, status: $0.status.description)
        }
        settings = configuration.settings.values.sorted { $0.key < $1.key }.map {
            Setting(
                key: $0.key.description, value: $0.value.description, layer: $0.origin.layer.description,
                source: $0.origin.location)
        }
        var ignoredSettings = configuration.ignored
        for verdict in report.verdicts {
            for entry in configuration.lockedOut(for: verdict.candidate.descriptor)
            where !ignoredSettings.contains(entry) {
                ignoredSettings.append(entry)
            }
        }
        ignored = ignoredSettings.map {
            Ignored(
                key: $0.setting.key.description, value: $0.setting.value.description,
                layer: $0.setting.origin.layer.description, source: $0.setting.origin.location,
                pinnedBy: $0.pinnedBy.origin.location, reason: $0.description)
        }
        locked = configuration.agentPins.values.sorted { $0.agent < $1.agent }.map {
            Locked(
                agent: $0.agent, options: $0.lockedOptions, userOptions: $0.userOptions,
                pinnedBy: $0.pinnedBy.origin.location)
        }
        warnings = configuration.warnings.map(\.description) + report.warnings
    }

    mutating func add(_ plan: SignInPlan, issuerProblem: String?) {
        let unknown = plan.steps.contains { $0.status == .unknown }
        flow = unknown && plan.chosen?.step != .browser ? nil : plan.chosen?.step.rawValue
        if !unknown, plan.chosen == nil {
            undecided = "no step is possible here (each step's reason says why)"
        } else if unknown, issuerProblem != nil {
            undecided = "undecided: the server's metadata could not be read (see the warnings)"
        }
        chain = plan.steps.map {
            ChainStep(
                step: $0.step.rawValue, status: $0.status.rawValue, agent: $0.agent?.descriptor.id, reason: $0.reason)
        }
        if let issuerProblem { warnings.append(issuerProblem) }
    }

    func jsonText() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    private enum CodingKeys: String, CodingKey {
        case chosen, flow, chain, candidates, config, settings, ignored, locked, warnings
    }

    /// Like the synthesized one, but `chosen` is always present: `null` when no candidate survived.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(chosen, forKey: .chosen)
        try container.encode(flow, forKey: .flow)
        try container.encode(chain, forKey: .chain)
        try container.encode(candidates, forKey: .candidates)
        try container.encode(config, forKey: .config)
        try container.encode(settings, forKey: .settings)
        try container.encode(ignored, forKey: .ignored)
        try container.encode(locked, forKey: .locked)
        try container.encode(warnings, forKey: .warnings)
    }

    /// The lines of the table form (printed escaped by ``Output/lines(_:)``).
    func table() -> [String] {
        var lines: [String] = []
        if let chosen {
            lines.append("Chosen: \(chosen)")
        } else {
            lines.append("Chosen: none (no candidate passed every rule; see the reasons below)")
        }
        if !chain.isEmpty {
            lines.append("Sign-in chain (eua login): " + (flow.map { "uses \($0)" } ?? undecided))
            lines += TextTable.render(
                header: ["STEP", "STATUS", "AGENT", "WHY"],
                rows: chain.map { [$0.step, $0.status, $0.agent ?? "-", $0.reason] }
            ).map { "  " + $0 }
        }
        lines.append("")
        if candidates.isEmpty {
            lines.append(
                "No candidates. Build the plugins (swift build) or set EUA_PLUGIN_PATH; 'eua agents' lists what loads.")
        } else {
            lines += TextTable.render(
                header: ["ID", "KIND", "SELECTED", "WHY"],
                rows: candidates.map {
                    [$0.id, $0.kind, $0.selected ? "yes" : "no", $0.reasons.joined(separator: "; ")]
                })
        }
        lines.append("")
        lines.append("Configuration files:")
        lines += TextTable.render(
            header: ["LAYER", "FILE", "STATUS"], rows: config.map { [$0.layer, $0.file, $0.status] }
        )
        .map { "  " + $0 }
        lines.append("")
        lines.append("Settings (the layer that decided each):")
        lines += TextTable.render(
            header: ["KEY", "VALUE", "LAYER", "FROM"],
            rows: settings.map { [$0.key, $0.value, $0.layer, $0.source] }
        ).map { "  " + $0 }
        if !locked.isEmpty {
            lines.append("")
            lines.append("Locked (agents the managed file pins; these options come from it alone):")
            lines += locked.map {
                "  \($0.agent): \($0.options.isEmpty ? "none" : $0.options.joined(separator: ", ")), pinned by \($0.pinnedBy)"
                    + ($0.userOptions.isEmpty ? "" : "; users may set \($0.userOptions.joined(separator: ", "))")
            }
        }
        if !ignored.isEmpty {
            lines.append("")
            lines.append("Ignored (pinned by the managed file):")
            lines += ignored.map { "  \($0.reason)" }
        }
        if !warnings.isEmpty {
            lines.append("")
            lines.append("Warnings:")
            lines += warnings.map { "  " + $0 }
        }
        return lines
    }
}
