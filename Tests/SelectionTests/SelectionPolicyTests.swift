// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
@testable import ExternalUserAgentCore
import ExternalUserAgentTesting
import Foundation
import Testing

@Suite("Selection policy, through plugins loaded with dlopen", .onOwnThreads)
struct SelectionPolicyTests {
    /// A layer that asks for `agent` by every means it has.
    static func asking(for agent: String, in layer: ConfigurationLayer) -> Layers {
        let file = "preference = [\"\(agent)\"]\nallow-test-agents = true\nallow = [\"\(agent)\"]\n"
        switch layer {
        case .system: return Layers(system: file)
        case .user: return Layers(user: file)
        case .environment: return Layers(environment: ["EUA_AGENT": agent, "EUA_ALLOW_TEST_AGENTS": "1"])
        case .code:
            return Layers(
                code: CodeConfiguration(preference: [agent], allowTestAgents: true, allow: [AgentMatcher(id: agent)]))
        case .managed: return Layers(managed: file)
        case .defaults: return Layers()
        }
    }

    @Test(
        "an embeddedWebView plugin chosen by any layer is never selected; the reason cites RFC 8252 §8.12",
        arguments: ConfigurationLayer.allCases)
    func embeddedNeverSelected(_ layer: ConfigurationLayer) throws {
        let catalog = try TestPlugins.catalog()
        #expect(catalog.agent(id: "webview")?.descriptor.kind == .embeddedWebView)
        let report = try Self.asking(for: "webview", in: layer).report(catalog)
        let webview = try #require(report.verdict("webview"))
        #expect(!webview.selected)
        #expect(webview.removedBy == .noEmbeddedWebViews)
        #expect(webview.reasons.first?.contains("RFC 8252 §8.12") == true)
        #expect(report.chosen?.id != "webview")
    }

    @Test("an embeddedWebView agent registered in code is refused too")
    func embeddedInCode() throws {
        let agent = FakeExternalUserAgent(id: "inapp", kind: .embeddedWebView)
        let error = try #require(throws: ExternalUserAgentError.self) {
            try AgentSelection.select(
                candidates: [AgentCandidate(agent: agent)],
                configuration: try Layers(code: CodeConfiguration(preference: ["inapp"])).configuration())
        }
        #expect(error.code == .noAgentAvailable)
        #expect(error.message.contains("inapp (embeddedWebView, code)"))
        #expect(error.message.contains("RFC 8252 §8.12"))
    }

    @Test(
        "a test agent without permission is refused with a reason about test agents, whoever asks for it",
        arguments: [ConfigurationLayer.system, .user, .environment, .code])
    func testAgentWithoutPermission(_ layer: ConfigurationLayer) throws {
        var layers = Self.asking(for: "fake", in: layer)
        layers.system = layers.system?.replacingOccurrences(of: "allow-test-agents = true\n", with: "")
        layers.user = layers.user?.replacingOccurrences(of: "allow-test-agents = true\n", with: "")
        layers.environment["EUA_ALLOW_TEST_AGENTS"] = nil
        layers.code.allowTestAgents = nil
        let report = try layers.report(try TestPlugins.catalog())
        let fake = try #require(report.verdict("fake"))
        #expect(!fake.selected)
        #expect(fake.removedBy == .testAgents)
        #expect(
            fake.reasons.contains { $0.contains("refused as a test agent") && $0.contains("EUA_ALLOW_TEST_AGENTS=1") })
    }

    @Test(
        "test agents allowed in code, environment or a file are selectable",
        arguments: [ConfigurationLayer.system, .user, .environment, .code])
    func testAgentAllowed(_ layer: ConfigurationLayer) throws {
        let report = try Self.asking(for: "fake", in: layer).report(try TestPlugins.catalog())
        #expect(report.chosen?.id == "fake")
        #expect(report.chosen?.reasons.contains { $0.hasPrefix("test agents are allowed by") } == true)
    }

    @Test("a managed file that forbids test agents beats code that allows them")
    func managedForbidsTestAgents() throws {
        let layers = Layers(
            environment: ["EUA_ALLOW_TEST_AGENTS": "1"],
            code: CodeConfiguration(preference: ["fake"], allowTestAgents: true))
        var managed = layers
        managed.managed = "allow-test-agents = false\n"
        let report = try managed.report(try TestPlugins.catalog())
        let fake = try #require(report.verdict("fake"))
        #expect(!fake.selected)
        #expect(
            fake.reasons.contains {
                $0.contains("managed file") && $0.contains("managed.toml:1") && $0.contains("no layer can allow")
            })
        #expect(
            try layers.report(try TestPlugins.catalog()).chosen?.id == "fake", "without the managed file it is chosen")
    }

    @Test(
        "a managed preference is beaten by nothing", arguments: [ConfigurationLayer.system, .user, .environment, .code])
    func managedPreference(_ layer: ConfigurationLayer) throws {
        var layers = Self.asking(for: "tab", in: layer)
        layers.system = layers.system.map { _ in "preference = [\"tab\"]\n" }
        layers.user = layers.user.map { _ in "preference = [\"tab\"]\n" }
        layers.code.allow = nil
        layers.managed = "preference = [\"chromium\"]\n"
        let report = try layers.report(try TestPlugins.catalog())
        #expect(report.chosen?.id == "chromium")
        #expect(
            report.verdict("tab")?.reasons.contains {
                $0.contains("not in the preference order [chromium] from managed file")
            } == true)
        #expect(
            report.configuration.ignored.contains { $0.setting.key == .preference && $0.setting.origin.layer == layer })
    }

    @Test(
        "allow and deny lists by id and version range",
        arguments: [
            ("allow = [\"firefox>=129\", \"chromium 120..<130\"]", "chromium", ["firefox": "outside its range"]),
            ("allow = [\"firefox>=115\"]", "firefox", ["chromium": "not on the allow list"]),
            ("deny = [\"firefox <200\"]", "chromium", ["firefox": "denied by the deny entry 'firefox <200'"]),
            ("deny = [\"* >=100\"]", "oldweb", ["firefox": "denied", "chromium": "denied"]),
            ("allow = [\"* >=1\"]", "firefox", ["oldweb": "a version range never matches an unknown version"]),
        ])
    func allowDeny(_ line: String, _ chosen: String, _ lost: [String: String]) throws {
        let report = try Layers(user: "preference = [\"firefox\", \"chromium\", \"oldweb\"]\n" + line + "\n").report(
            try TestPlugins.catalog())
        #expect(report.chosen?.id == chosen)
        for (id, text) in lost {
            let verdict = try #require(report.verdict(id))
            #expect(verdict.removedBy == .allowDeny, "\(id)")
            #expect(verdict.reasons.contains { $0.contains(text) }, "\(id): \(verdict.reasons)")
        }
    }

    @Test("an unavailable agent loses with the plugin's own reason; the next preference wins")
    func availability() throws {
        let report = try Layers(user: "preference = [\"offline\", \"chromium\"]\n").report(try TestPlugins.catalog())
        #expect(report.chosen?.id == "chromium")
        let offline = try #require(report.verdict("offline"))
        #expect(offline.removedBy == .availability)
        #expect(
            offline.reasons == ["not available on this machine: no display (DISPLAY and WAYLAND_DISPLAY are unset)"])
    }

    @Test("with the default preference '*', the best kind wins: external browser before tab before manual")
    func kindOrder() throws {
        let catalog = try TestPlugins.catalog()
        #expect(
            try Layers().report(catalog).chosen?.id == "chromium", "libchromium.so is the first external browser found")
        #expect(
            try Layers(user: "deny = [\"firefox\", \"chromium\", \"oldweb\"]\n").report(catalog).chosen?.id == "tab")
        #expect(
            try Layers(user: "allow = [\"typist\", \"fake\"]\nallow-test-agents = true\n").report(catalog).chosen?.id
                == "fake")
        #expect(try Layers(user: "preference = [\"typist\", \"*\"]\n").report(catalog).chosen?.id == "typist")
    }

    @Test("none survives: one noAgentAvailable error lists every candidate, why it lost, and what to change")
    func noneSurvives() throws {
        let layers = Layers(environment: ["EUA_AGENT": "fake"])
        let catalog = try TestPlugins.catalog()
        let error = try #require(throws: ExternalUserAgentError.self) {
            try AgentSelection.select(
                candidates: AgentSelection.candidates(catalog: catalog), configuration: try layers.configuration())
        }
        #expect(error.code == .noAgentAvailable)
        for agent in catalog.agents {
            #expect(
                error.message.contains("  - \(agent.descriptor.id) (\(agent.descriptor.kind), \(agent.plugin.path)): "))
        }
        #expect(error.message.contains("refused as a test agent"))
        #expect(error.message.contains("add 'firefox' (or '*') to it"))
        #expect(error.message.contains("Change what each reason names") && error.remedies == [.explainSelection])

        let empty = try #require(throws: ExternalUserAgentError.self) {
            try AgentSelection.select(candidates: [], configuration: try Layers().configuration())
        }
        #expect(empty.message.contains("there are no candidates"))
    }

    @Test("the one entry point: select(catalog:registered:code:sources:) gives the agent with its options")
    func entryPoint() async throws {
        let folder = try TemporaryFolder()
        let layers = Layers(user: "[agent-options.mine]\nprofile = \"work\"\n")
        let agent = FakeExternalUserAgent(id: "mine", kind: .externalBrowser)
        let selected = try AgentSelection.select(
            catalog: try TestPlugins.catalog(), registered: [AgentCandidate(agent: agent)],
            code: CodeConfiguration(preference: ["mine"]), sources: try layers.sources(in: folder))
        #expect(selected.candidate.descriptor.id == "mine")
        #expect(selected.options == ["profile": "work"])
        #expect(selected.makeAgent().descriptor.id == "mine")

        let plugin = try AgentSelection.select(
            catalog: try TestPlugins.catalog(),
            code: CodeConfiguration(preference: ["chromium"], agentOptions: ["chromium": ["private": "true"]]),
            sources: try Layers().sources(in: folder))
        #expect(plugin.makeAgent() is PluginAgent)
        #expect(plugin.options == ["private": "true"])
    }

    @Test("an app agent with a plugin's id replaces the plugin's; an unavailable app agent says why")
    func registered() throws {
        let agent = FakeExternalUserAgent(id: "firefox", kind: .externalBrowser)
        let candidates = AgentSelection.candidates(
            catalog: try TestPlugins.catalog(),
            registered: [AgentCandidate(agent: agent, available: false)])
        #expect(candidates.filter { $0.descriptor.id == "firefox" }.count == 1)
        #expect(candidates.first?.origin == "code")
        let report = AgentSelection.evaluate(
            candidates: candidates,
            configuration: try Layers(user: "preference = [\"firefox\", \"*\"]\n").configuration())
        #expect(
            report.verdict("firefox")?.reasons == ["not available on this machine: the app says it cannot run here"])
        #expect(report.chosen?.id == "chromium")
    }
}
