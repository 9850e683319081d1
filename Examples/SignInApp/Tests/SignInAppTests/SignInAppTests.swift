// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore
import ExternalUserAgentOAuth
import ExternalUserAgentTesting
import FoundationEssentials
import Testing
#if canImport(Glibc)
import Glibc
#endif

@testable import SignInApp

/// The app's own tests, as a depending package writes them: one through the headless agent plugin that SwiftPM
/// built beside the tests, one with the in-process fake agent and no plugin at all.
@Suite("SignInApp signs in against the testing kit's local authorization server")
struct SignInAppTests {
    @Test("through the headless agent plugin (follow mode), found beside the test binary")
    func headlessPlugin() async throws {
        try await LocalAuthorizationServer.withServer(.init(clientID: "sign-in-app", subject: "alice")) { server in
            let catalog = await PluginLoader().load()
            #expect(catalog.agent(id: "headless") != nil, "libEUAHeadless.so was built beside the tests")
            #expect(catalog.receiver(id: "loopback") != nil)
            var code = CodeConfiguration(
                preference: ["headless"], allowTestAgents: true,
                agentOptions: ["headless": ["mode": "follow"]])
            code.namedAgent = "headless"
            let who = try await AppSignIn.run(
                issuer: server.issuer, clientID: "sign-in-app", code: code, catalog: catalog)
            #expect(who == "alice")
            #expect(server.tokenRequests.count == 1 && server.tokenRequests[0].refusal == nil)
        }
    }

    @Test("with the in-process fake agent: no plugin, milliseconds")
    func fakeAgent() async throws {
        try await LocalAuthorizationServer.withServer(.init(clientID: "sign-in-app")) { server in
            let fake = FakeExternalUserAgent(script: .signIn(at: server, as: "bob"))
            let flow = SignInFlow(
                issuer: server.issuer, client: ClientCredentials(clientID: "sign-in-app"),
                candidates: [AgentCandidate(agent: fake)],
                configuration: try Configuration.load(code: CodeConfiguration(allowTestAgents: true)),
                receiver: SignInFlow.Receiver { _ in FakeRedirectReceiver() })
            let state = try await flow.run()
            #expect(await state.idTokenClaims?.subject == "bob")
        }
    }
}

/// The app's configuration at work: an agent picked by a config file, and an administrator's managed file.
@Suite("SignInApp: agents chosen by configuration")
struct SignInAppConfigurationTests {
    /// The configuration of a user file and a managed file with these texts, written to a folder of the test's own,
    /// which is removed once they are read.
    func loadedConfiguration(user: String? = nil, managed: String? = nil) throws -> Configuration {
        let folder = "/tmp/sign-in-app-\(UInt64.random(in: 0...UInt64.max))"
        #expect(mkdir(folder, 0o700) == 0)
        var written: [String] = []
        defer {
            for file in written { unlink(file) }
            rmdir(folder)
        }
        func write(_ text: String?, _ name: String) -> String? {
            guard let text else { return nil }
            let path = folder + "/" + name
            guard let file = fopen(path, "w") else { return nil }
            fputs(text, file)
            fclose(file)
            written.append(path)
            return path
        }
        return try Configuration.load(
            sources: ConfigurationSources(
                environment: [:], systemFiles: [], userFile: write(user, "config.toml"),
                managedFile: write(managed, "managed.toml")))
    }

    @Test("the app's own Swift plugin is picked by the user's config file, with its options, and completes a session")
    func configSelectedPlugin() async throws {
        let catalog = await PluginLoader().load()
        let agent = try #require(catalog.agent(id: "app-agent"), "libAppAgent.so, built beside the tests, loaded")
        #expect(agent.descriptor.kind == .testDouble)
        let configuration = try loadedConfiguration(
            user: """
                preference = ["app-agent", "*"]
                allow-test-agents = true
                [agent-options.app-agent]
                code = "from-config"
                """)
        let selected = try AgentSelection.select(
            candidates: AgentSelection.candidates(catalog: catalog),
            configuration: configuration)
        #expect(selected.candidate.descriptor.id == "app-agent")
        #expect(selected.options == ["code": "from-config"])
        let receiver = FakeRedirectReceiver()
        let session = ExternalUserAgentSession(
            agent: selected.makeAgent(), receiver: receiver,
            configuration: .init(expectedState: "st-app", timeout: .seconds(10)))
        let callback = try await session.run { redirect in
            URL(string: "https://id.example.com/authorize?state=st-app&redirect_uri=\(redirect.absoluteString)")!
        }
        #expect(callback.query == "code=from-config&state=st-app")
    }

    @Test("an administrator's managed file pins Firefox with a profile; the user's file cannot change it")
    func enterpriseFirefox() throws {
        let catalog = PluginLoader().load()
        let configuration = try loadedConfiguration(
            user: "preference = [\"chromium\"]\n[agent-options.firefox]\nprofile = \"mine\"\n",
            managed: "preference = [\"firefox\"]\n[agent-options.firefox]\nprofile = \"work\"\nprivate = true\n")
        #expect(configuration.preference == ["firefox"])
        let report = AgentSelection.evaluate(
            candidates: AgentSelection.candidates(catalog: catalog),
            configuration: configuration)
        // Debian's Firefox is firefox-esr: the family name reaches it, with the managed options.
        if let firefox = catalog.agents.first(where: { $0.descriptor.answers(to: "firefox") }) {
            #expect(configuration.options(for: firefox.descriptor) == ["profile": "work", "private": "true"])
            let verdict = try #require(report.verdicts.first { $0.id == firefox.descriptor.id })
            #expect(verdict.selected || !firefox.available, "Firefox wins wherever it can run")
        }
        #expect(
            report.chosen.map { $0.candidate.descriptor.answers(to: "firefox") } ?? true,
            "no other browser is chosen while Firefox is pinned")
        #expect(
            configuration.ignored.contains { $0.setting.key.description == "preference" },
            "the user's preference is listed as overruled by the managed file")
    }
}
