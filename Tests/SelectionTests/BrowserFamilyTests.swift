// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
@testable import ExternalUserAgentCore
import ExternalUserAgentTesting
import Foundation
import InMemoryLogging
import Logging
import Testing

/// A family name (`firefox`) names every build of a browser (firefox, firefox-esr, …): in `preference`,
/// `allow`, `deny`, `[agent-options.<name>]` and `--agent`. A name that matches no agent is never silent.
@Suite("Browser families and names that match no agent", .onOwnThreads)
struct BrowserFamilyTests {
    static let candidates = [
        AgentCandidate(agent: FakeExternalUserAgent(id: "chromium", kind: .externalBrowser, family: "chromium")),
        AgentCandidate(agent: FakeExternalUserAgent(id: "firefox-esr", kind: .externalBrowser, family: "firefox")),
        AgentCandidate(agent: FakeExternalUserAgent(id: "manual", kind: .manual)),
    ]

    func select(_ layers: Layers, logger: Logger = CommandlessLogger.silent) throws -> SelectedAgent {
        try AgentSelection.select(
            candidates: Self.candidates, configuration: try layers.configuration(), logger: logger)
    }

    @Test("preference = [\"firefox\"] picks firefox-esr, and [agent-options.firefox] reaches it; its own table wins")
    func familyInPreferenceAndOptions() throws {
        let selected = try select(
            Layers(
                user: """
                    preference = ["firefox", "*"]
                    [agent-options.firefox]
                    profile = "work"
                    private = true
                    [agent-options.firefox-esr]
                    private = false
                    """))
        #expect(selected.candidate.descriptor.id == "firefox-esr")
        #expect(selected.options == ["profile": "work", "private": "false"])
        #expect(selected.report.warnings.isEmpty, "\(selected.report.warnings)")
    }

    @Test("deny = [\"firefox\"] denies firefox-esr; allow = [\"chromium\"] keeps only chromium")
    func familyInDenyAndAllow() throws {
        let denied = try select(Layers(user: "preference = [\"firefox-esr\", \"*\"]\ndeny = [\"firefox\"]\n"))
        #expect(denied.candidate.descriptor.id == "chromium")
        let verdict = try #require(denied.report.verdict("firefox-esr"))
        #expect(verdict.reasons.contains { $0.contains("denied by the deny entry 'firefox'") })
        let allowed = try select(
            Layers(user: "preference = [\"firefox\", \"*\"]\nallow = [\"chromium\", \"manual\"]\n"))
        #expect(allowed.candidate.descriptor.id == "chromium")
    }

    @Test("a managed file that pins the family forces that browser with its profile")
    func managedFamily() throws {
        let selected = try select(
            Layers(
                user: "preference = [\"chromium\"]\n",
                managed: "preference = [\"firefox\"]\n[agent-options.firefox]\nprofile = \"corp\"\n"))
        #expect(selected.candidate.descriptor.id == "firefox-esr")
        #expect(selected.options["profile"] == "corp")
    }

    @Test("names that match no agent are warnings with file:line, in the report and in the app's logger")
    func unmatchedNamesWarn() throws {
        let logs = InMemoryLogHandler()
        let logger = Logger(label: "test") { _ in logs }
        let selected = try select(
            Layers(
                user: """
                    preference = ["edge", "*"]
                    deny = ["brave"]
                    [agent-options.opera]
                    private = true
                    """), logger: logger)
        let warnings = selected.report.warnings
        #expect(warnings.count == 3, "\(warnings)")
        #expect(warnings.contains { $0.contains("'edge' in the preference order") && $0.contains("config.toml:1") })
        #expect(warnings.contains { $0.contains("config.toml:2: the deny entry 'brave' matches no agent") })
        #expect(warnings.contains { $0.contains("config.toml:4: [agent-options.opera] names no agent") })
        #expect(warnings.allSatisfy { $0.contains("firefox-esr (family firefox)") }, "each lists the agents here")
        let logged = logs.entries.filter { $0.level == .warning }.map(\.message.description)
        #expect(logged == selected.report.allWarnings)
    }

    @Test("configuration warnings (an unknown key) reach the logger too")
    func configurationWarningsLogged() throws {
        let logs = InMemoryLogHandler()
        let selected = try select(
            Layers(user: "preferense = [\"firefox\"]\n"), logger: Logger(label: "test") { _ in logs })
        #expect(selected.report.allWarnings.contains { $0.contains("preferense") })
        #expect(logs.entries.contains { $0.message.description.contains("preferense") })
    }

    @Test("an agent named explicitly that no agent answers to: the error says so and lists the agents")
    func namedUnknown() throws {
        var layers = Layers()
        layers.code.preference = ["nope"]
        layers.code.namedAgent = "nope"
        let error = try #require(throws: ExternalUserAgentError.self) { try select(layers) }
        #expect(error.code == .noAgentAvailable)
        #expect(error.message.contains("no agent has the id or family 'nope'"))
        #expect(error.message.contains("chromium, firefox-esr (family firefox), manual"))
    }

    @Test("an agent named by its family is the named agent (used even when its plugin says it cannot run)")
    func namedFamily() throws {
        var layers = Layers()
        layers.code.preference = ["firefox"]
        layers.code.namedAgent = "firefox"
        #expect(try select(layers).candidate.descriptor.id == "firefox-esr")
    }
}

/// A logger that drops everything, for tests that do not read the logs.
enum CommandlessLogger {
    static let silent = Logger(label: "silent") { _ in SwiftLogNoOpLogHandler() }
}
