// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import Foundation
import Testing

/// One grammar for plugin, agent and receiver ids, checked at load; agents and receivers share one namespace.
@Suite("Plugin ids", .onOwnThreads, .timeLimit(.minutes(1)))
struct PluginIDTests {
    func load(_ folders: [URL]) -> PluginCatalog {
        PluginLoader(searchPath: PluginSearchPath(folders: folders.map(\.path))).load()
    }

    @Test("every id the project's plugins and examples use follows the grammar")
    func existingIDs() {
        let ids = [
            "firefox", "firefox-esr", "chromium", "chromium-family", "google-chrome", "microsoft-edge",
            "brave-browser", "vivaldi", "opera", "system-browser", "headless", "manual", "loopback",
            "example-c", "misbehaving", "org.example.agent_2", "a", "7zip", String(repeating: "a", count: 64),
        ]
        for id in ids { #expect(ComponentID.isValid(id), "\(id)") }
    }

    @Test("wildcards, empty, upper case, spaces, controls, non-ASCII, edges and length are refused")
    func badIDs() {
        let ids = [
            "*", "", "Firefox", "fire fox", "-x", "x-", ".x", "x.", "_x", "a\u{1B}[31m", "é", "a/b",
            "a,b", String(repeating: "a", count: 65), "a\n",
        ]
        for id in ids {
            #expect(!ComponentID.isValid(id), "\(id.debugDescription)")
            #expect(ComponentID.problem(with: id)?.contains("lowercase letters") == true)
        }
        #expect(ComponentID.problem(with: "a\u{1B}b")?.contains("\u{1B}") == false, "the id is quoted escaped")
    }

    @Test("the configuration's matchers use the same grammar, and keep '*' as the wildcard")
    func matchers() throws {
        #expect(try AgentMatcher(parsing: "*").id == "*")
        #expect(try AgentMatcher(parsing: "system-browser >=1").id == "system-browser")
        #expect(throws: VersionRangeSyntaxError.self) { try AgentMatcher(parsing: "Firefox") }
        #expect(throws: VersionRangeSyntaxError.self) { try AgentMatcher(parsing: "x.>=1") }
    }

    @Test("an agent id '*' from a plugin is skipped, named with the file, and never picked by the default preference")
    func starAgent() throws {
        let folder = try TemporaryFolder()
        let lib = try CPluginBuilder.build(
            defines: ["AGENT_ID=\"*\"", "KIND=\"externalBrowser\""],
            name: "libstar.so", in: folder.url)
        let catalog = load([folder.url])
        #expect(catalog.agents.isEmpty)
        #expect(catalog.plugins.count == 1, "the plugin itself (id 'misbehaving') loads")
        let failure = try #require(catalog.failures.first)
        #expect(catalog.failures.count == 1)
        #expect(failure.path == lib.path)
        #expect(failure.error.code == .pluginDescriptionInvalid)
        #expect(failure.error.message.contains("\"*\""), "names the id: \(failure.error.message)")
        let sources = ConfigurationSources(environment: [:], systemFiles: [], userFile: nil, managedFile: nil)
        #expect(throws: ExternalUserAgentError.self) {
            _ = try AgentSelection.select(
                catalog: catalog, code: CodeConfiguration(allowTestAgents: true), sources: sources)
        }
    }

    @Test("an empty agent id is skipped; an empty or '*' plugin id refuses the plugin")
    func emptyIDs() throws {
        let folder = try TemporaryFolder()
        let emptyAgent = try CPluginBuilder.build(defines: ["AGENT_ID=\"\""], name: "libempty-agent.so", in: folder.url)
        let emptyPlugin = try CPluginBuilder.build(
            defines: ["PLUGIN_ID=\"\""], name: "libempty-plugin.so", in: folder.url)
        let starPlugin = try CPluginBuilder.build(
            defines: ["PLUGIN_ID=\"*\""], name: "libstar-plugin.so", in: folder.url)
        let catalog = load([folder.url])
        #expect(catalog.agents.isEmpty)
        let byPath = Dictionary(grouping: catalog.failures, by: \.path)
        #expect(byPath[emptyAgent.path]?.first?.error.message.contains("agent skipped: the id \"\"") == true)
        for refused in [emptyPlugin, starPlugin] {
            let error = try #require(byPath[refused.path]?.first?.error)
            #expect(error.code == .pluginDescriptionInvalid)
            #expect(error.message.contains("bad plugin id"), "\(error.message)")
        }
        #expect(catalog.plugins.map(\.path) == [emptyAgent.path])
    }

    @Test("a receiver may not take an agent's id: not in the same plugin, not in a later one")
    func sharedNamespace() throws {
        let folder = try TemporaryFolder()
        let same = try CPluginBuilder.build(
            defines: ["PLUGIN_ID=\"both\"", "RECEIVER_ID=\"both\""],
            name: "liba-both.so", in: folder.url)
        let later = try CPluginBuilder.build(
            defines: ["PLUGIN_ID=\"thief\"", "NO_AGENT", "RECEIVER_ID=\"both\""],
            name: "libb-thief.so", in: folder.url)
        let catalog = load([folder.url])
        #expect(catalog.agent(id: "both")?.plugin.path == same.path)
        #expect(catalog.receiver(id: "both") == nil)
        let errors = catalog.failures.map { ($0.path, $0.error) }
        #expect(errors.count == 2, "\(catalog.failures)")
        #expect(
            errors.contains {
                $0.0 == same.path && $0.1.code == .pluginDuplicateID && $0.1.message.contains("this plugin")
            })
        #expect(
            errors.contains {
                $0.0 == later.path && $0.1.code == .pluginDuplicateID && $0.1.message.contains(same.path)
            })
    }

    @Test("an agent may not take an earlier plugin's receiver id")
    func agentAfterReceiver() throws {
        let folder = try TemporaryFolder()
        let receiver = try CPluginBuilder.build(
            defines: ["PLUGIN_ID=\"rx\"", "NO_AGENT", "RECEIVER_ID=\"taken\""],
            name: "liba-rx.so", in: folder.url)
        let agent = try CPluginBuilder.build(
            defines: ["PLUGIN_ID=\"ag\"", "AGENT_ID=\"taken\""],
            name: "libb-ag.so", in: folder.url)
        let catalog = load([folder.url])
        #expect(catalog.receiver(id: "taken")?.plugin.path == receiver.path)
        #expect(catalog.agent(id: "taken") == nil)
        let failure = try #require(catalog.failures.first)
        #expect(failure.path == agent.path)
        #expect(failure.error.message.contains("the receiver of \(receiver.path)"))
    }
}
