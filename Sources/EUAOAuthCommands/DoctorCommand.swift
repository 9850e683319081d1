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

/// `eua doctor`: why sign-in will or will not work here, for a user or an administrator, in one command.
///
/// Contract: `--json` prints one object `{"can_sign_in","problems":[…],"notes":[…],"way","agent","configuration":{…as eua
/// explain…},"capabilities":{…as eua capabilities…},"plugin_errors":[{"path","error"}],"issuer":[{"check","ok",
/// "detail"}]}`. Exit status: 0 when sign-in can work, 1 when it cannot (each reason in `problems`), 2 for a
/// broken configuration.
package struct DoctorCommand: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract:
            "Tell why sign-in will or will not work here: configuration, agents, platform, loopback, and a provider.",
        discussion: """
            Checks, in order: the configuration files and their layers (which key came from where, what the managed \
            file pins, and for an agent it pins, which of the agent options set elsewhere it ignores: the notes), the agents found and refused with their reasons, the default browser, the display, SSH, \
            sandbox and container facts, whether 127.0.0.1 and ::1 can be bound for the redirect, and with --issuer, \
            the provider's metadata, its key set and the difference between the clocks. \
            Exit status: 0 sign-in can work here, 1 it cannot (the problems say why and what to do), 2 the \
            configuration is broken.
            """
    )

    @Flag(help: "Print one JSON object (see the discussion above).")
    var json = false

    @Option(help: "Also check this provider: its metadata, its key set, and the clocks.")
    var issuer: String?

    @Option(help: "Check for this agent, as 'eua login --agent' would use it.")
    var agent: String?

    @Option(help: "Seconds each network check may take.")
    var timeout: Double = 10

    package func validate() throws {
        guard timeout > 0, timeout <= 300 else {
            throw ValidationError("--timeout must be more than 0 and at most 300 seconds")
        }
    }

    package func run() throws {
        let environment = ProcessEnvironment.current()
        CommandLogging.bootstrap(environment: environment)
        var code = CodeConfiguration.commandLine
        if let agent { code.name(agent) }
        let configuration: Configuration
        do {
            configuration = try Configuration.load(sources: .standard(environment: environment), code: code)
        } catch {
            Output.errorLine(
                "eua doctor: sign-in cannot work until the configuration is fixed: \(error.commandLineMessage)")
            Output.exit(2)
        }
        let catalog = CommandCatalog.loader(environment: environment).load()
        let candidates = AgentSelection.candidates(catalog: catalog)
        let report = AgentSelection.evaluate(candidates: candidates, configuration: configuration)
        let capabilities = CapabilityReport(catalog: catalog, facts: .gather(environment: environment))
        var findings: [ProviderCheck.Finding] = []
        var service: ServiceConfiguration?
        if let issuer {
            let http = OAuthHTTP(timeout: .milliseconds(Int64(timeout * 1000)))
            let logger = Logger(label: "eua.doctor")
            (findings, service) = try Blocking.run {
                await ProviderCheck.run(issuer: issuer, http: http, logger: logger)
            }
            if let seen = ProviderNotes.standard(environment: environment).endSessionNeedsHint(issuer: issuer) {
                findings.append(
                    ProviderCheck.Finding(
                        check: "sign-out", ok: true,
                        detail:
                            "eua logout saw \(issuer) answer an end-session request without id_token_hint with an empty "
                            + "page and no redirect (\(seen.formatted(.iso8601))): it ends a session only for a hint; set "
                            + "[logout.end-session] \"\(issuer)\" = \"hint-get\" (\"hint-post\" when it takes POST), or give "
                            + "eua logout --end-session hint-get"))
            }
        }
        let plan = SignInChain.plan(candidates: candidates, configuration: configuration, service: service)
        var explanation = Explanation(report)
        explanation.add(
            plan,
            issuerProblem: issuer != nil && service == nil
                ? "the metadata of \(issuer ?? "") could not be read (see Provider)" : nil)
        var diagnosis = Diagnosis(
            plan: plan, capabilities: capabilities, findings: findings,
            pluginErrors: catalog.failures.map { .init(path: $0.path, error: $0.error.commandLineMessage) },
            explanation: explanation,
            storage: .init(AuthAccounts.standard(environment: environment), configuration: configuration))
        diagnosis.signinService = .init(SignInServiceProbe.state(), configuration: configuration)
        if let chosen = plan.chosen?.agent?.descriptor, let pin = configuration.pin(for: chosen) {
            diagnosis.notes.append(
                "\(pin) (the agent '\(chosen.id)' answers to it): its "
                    + (pin.lockedOptions.isEmpty ? "options are" : pin.lockedOptions.joined(separator: ", ") + " come")
                    + " from that file alone"
                    + (pin.userOptions.isEmpty ? "" : "; users may set \(pin.userOptions.joined(separator: ", "))"))
        }
        // What a pin keeps from each agent found here, whether or not it is the one chosen.
        for candidate in candidates {
            for entry in configuration.lockedOut(for: candidate.descriptor)
            where !diagnosis.notes.contains(entry.description) {
                diagnosis.notes.append(entry.description)
            }
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            Output.json(String(decoding: try encoder.encode(diagnosis), as: UTF8.self))
        } else {
            Output.lines(diagnosis.text())
        }
        Output.exit(diagnosis.canSignIn ? 0 : 1)
    }
}

/// What `eua doctor` found; its JSON keys are a contract other tools read.
struct Diagnosis: Encodable {
    /// Where `eua login` saves tokens.
    struct Storage: Encodable {
        /// `secret-service` or `file`; `nil` when the back end the configuration forces is not available.
        var backend: String?
        /// Why that one, or why the forced one is not available.
        var reason: String
        var folder: String
        var accounts: Int

        init(_ store: AuthAccounts, configuration: Configuration) {
            do {
                let choice = try StorageChoice.choose(configuration)
                (backend, reason) = (choice.backend.rawValue, choice.reason)
            } catch {
                (backend, reason) = (nil, (error as? ExternalUserAgentError)?.commandLineMessage ?? "\(error)")
            }
            folder = store.folder
            accounts = store.savedCount
        }
    }

    /// The sign-in service (`eua-signin-service`) on the session bus, and what the host's `[signin]` table lets apps do.
    struct SignInService: Encodable {
        /// `running`, `activatable` (it starts on the first call) or `absent`.
        var state: String
        var reason: String?
        var sandboxedApps: Bool
        var hostApps: Bool
        /// The issuers apps may sign in to; `nil`: any.
        var issuers: [String]?

        init(_ probe: (state: String, why: String?), configuration: Configuration) {
            (state, reason) = probe
            sandboxedApps = configuration[.signinSandboxedApps]?.value.boolValue ?? true
            hostApps = configuration[.signinHostApps]?.value.boolValue ?? true
            issuers = configuration[.signinIssuers]?.value.stringList
        }

        private enum CodingKeys: String, CodingKey {
            case state, reason
            case sandboxedApps = "sandboxed_apps"
            case hostApps = "host_apps"
            case issuers
        }
    }

    struct PluginError: Encodable {
        var path: String
        var error: String
    }

    var canSignIn: Bool
    var problems: [String]
    /// What a person should know that does not stop sign-in: a managed pin of the agent, settings it ignores.
    var notes: [String] = []
    /// The step `eua login` would take (`browser`, `device`, `manual`), or null.
    var way: String?
    var agent: String?
    var configuration: Explanation
    var capabilities: CapabilityReport
    var pluginErrors: [PluginError]
    var issuer: [ProviderCheck.Finding]
    var storage: Storage
    /// The sign-in service; `nil` until set.
    var signinService: SignInService?

    init(
        plan: SignInPlan, capabilities: CapabilityReport, findings: [ProviderCheck.Finding],
        pluginErrors: [PluginError],
        explanation: Explanation, storage: Storage
    ) {
        var problems: [String] = []
        self.storage = storage
        let chosen = plan.chosen
        if chosen == nil {
            problems.append(plan.error.commandLineMessage)
        }
        if let step = chosen?.step, step != .device,
            capabilities.platform.ipv4Loopback == false, capabilities.platform.ipv6Loopback == false
        {
            problems.append(
                "neither 127.0.0.1 nor ::1 can be bound here, so the redirect cannot come back to this "
                    + "machine; check the network namespace or sandbox (a loopback interface must be up)")
        }
        problems += findings.filter { !$0.ok }.map { "\($0.check): \($0.detail)" }
        if storage.backend == nil { problems.append("tokens cannot be saved: \(storage.reason)") }
        self.problems = problems
        canSignIn = problems.isEmpty
        way = chosen?.step.rawValue
        agent = chosen?.agent?.descriptor.id
        configuration = explanation
        self.capabilities = capabilities
        self.pluginErrors = pluginErrors
        issuer = findings
    }

    private enum CodingKeys: String, CodingKey {
        case canSignIn = "can_sign_in"
        case problems, notes, way, agent, configuration, capabilities
        case pluginErrors = "plugin_errors"
        case issuer, storage
        case signinService = "signin_service"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(canSignIn, forKey: .canSignIn)
        try container.encode(problems, forKey: .problems)
        try container.encode(notes, forKey: .notes)
        try container.encode(way, forKey: .way)
        try container.encode(agent, forKey: .agent)
        try container.encode(configuration, forKey: .configuration)
        try container.encode(capabilities, forKey: .capabilities)
        try container.encode(pluginErrors, forKey: .pluginErrors)
        try container.encode(issuer, forKey: .issuer)
        try container.encode(storage, forKey: .storage)
        try container.encodeIfPresent(signinService, forKey: .signinService)
    }

    /// The plain-text report: the verdict first, then what it rests on.
    func text() -> [String] {
        var lines: [String]
        if canSignIn {
            lines = [
                "Sign-in can work here: eua login would use the \(way ?? "?") step"
                    + (agent.map { " with the agent '\($0)'" } ?? "") + "."
            ]
        } else {
            lines = ["Sign-in cannot work here yet:"]
            // A problem may be laid out over several lines (the chain's steps): each becomes a line of its own.
            for problem in problems {
                let parts = problem.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                lines.append("  - " + parts[0])
                lines += parts.dropFirst().map { "    " + $0 }
            }
        }
        lines += notes.map { "Note: " + $0 }
        if !issuer.isEmpty {
            lines.append("")
            lines.append("Provider:")
            lines += issuer.map { "  \($0.ok ? "ok     " : "PROBLEM") \($0.check): \($0.detail)" }
        }
        if !pluginErrors.isEmpty {
            lines.append("")
            lines.append("Plugins that could not be loaded:")
            lines += pluginErrors.map { "  \($0.path): \($0.error)" }
        }
        lines.append("")
        let count = "\(storage.accounts) account\(storage.accounts == 1 ? "" : "s") now; see 'eua accounts'"
        switch storage.backend {
        case "secret-service"?:
            lines.append(
                "Storage: secret-service — tokens in the Secret Service, an index without secrets in "
                    + "\(storage.folder) (\(count)); why: \(storage.reason).")
        case "file"?:
            lines.append(
                "Storage: file — private files (mode 0600), one per account, in \(storage.folder) (\(count)); "
                    + "why: \(storage.reason).")
        default:
            lines.append("Storage: unavailable — \(storage.reason).")
        }
        if let service = signinService {
            let who =
                service.sandboxedApps && service.hostApps
                ? "sandboxed and unsandboxed apps"
                : service.sandboxedApps ? "sandboxed apps only" : service.hostApps ? "unsandboxed apps only" : "no app"
            let issuers = service.issuers.map { $0.joined(separator: ", ") } ?? "any issuer"
            let state =
                switch service.state {
                case "running": "running"
                case "activatable": "not running; starts on the first call"
                default:
                    "not reachable (\(service.reason ?? "no reason given")); install eua-signin-service and its D-Bus service file"
                }
            lines.append(
                "Sign-in service (org.externaluseragent.SignIn): \(state). For an app it would sign in the way "
                    + "above, for \(who), to \(issuers) ([signin] in the configuration).")
        }
        lines.append("")
        lines += CapabilityTable.lines(capabilities)
        lines.append("")
        lines += configuration.table()
        return lines
    }
}
