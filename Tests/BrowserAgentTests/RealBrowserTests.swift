// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import ExternalUserAgentTesting
import Foundation
import Testing

extension RealBrowsers {
    /// Real headless Chromium and Firefox ESR (Debian's packages, installed by scripts/bootstrap), each in an
    /// ephemeral profile, through the real loopback receiver: the browser follows the URL to the redirect.
    @Suite("Real headless browsers", .onOwnThreads, .timeLimit(.minutes(3)))
    struct RealBrowserTests {
        static let browsers = ["chromium", "firefox-esr"]

        func session(_ id: String, timeout: Duration = .seconds(60)) throws -> ExternalUserAgentSession {
            let catalog = try BuiltPlugins.catalog()
            let entry = try #require(catalog.agent(id: id), "\(id) is installed (scripts/bootstrap installs it)")
            let receiver = try #require(catalog.receiver(id: "loopback")).makeReceiver()
            return ExternalUserAgentSession(
                agent: entry.makeAgent(options: ["headless": "true", "ephemeral": "true"], dismissGrace: .seconds(15)),
                receiver: receiver, configuration: .init(expectedState: "st-browser", timeout: timeout))
        }

        @Test(
            "a loopback round trip through the real headless browser; nothing of it is left afterwards",
            arguments: browsers)
        func roundTrip(_ id: String) async throws {
            let before = BrowserLeftovers.scan()
            let clock = ContinuousClock()
            let start = clock.now
            let url = try await session(id).run { redirect in
                URL(string: redirect.absoluteString + "?code=from-\(id)&state=st-browser")!
            }
            let elapsed = clock.now - start
            #expect(url.query == "code=from-\(id)&state=st-browser")
            let after = BrowserLeftovers.scan()
            #expect(after.processes.isEmpty, "no browser process of the run is left: \(after.processes)")
            #expect(after.folders == before.folders, "the temporary profile is gone")
            print("\(id): headless loopback round trip in \(elapsed)")
        }

        @Test("a browser killed mid-flow ends the session as a user cancel within two seconds", arguments: browsers)
        func killedMidFlow(_ id: String) async throws {
            let session = try session(id)
            let running = Task { try await session.run { _ in URL(string: "data:text/html,<p>waiting</p>")! } }
            // The browser the agent started is a child of this test process.
            var leader: Int32?
            let deadline = Date().addingTimeInterval(20)
            while leader == nil, Date() < deadline {
                leader = BrowserLeftovers.scan().processes.first { BrowserLeftovers.parent(of: $0) == getpid() }
                try await Task.sleep(for: .milliseconds(100))
            }
            let pid = try #require(leader, "\(id) started")
            try await Task.sleep(for: .milliseconds(500))
            let killedAt = ContinuousClock.now
            kill(pid, SIGKILL)
            do {
                _ = try await running.value
                Issue.record("the session completed although the browser was killed")
            } catch let error as ExternalUserAgentError {
                #expect(error.code == .userCanceled, "\(error)")
                #expect(error.message.contains("closed"))
            }
            #expect(ContinuousClock.now - killedAt < .seconds(2))
            #expect(BrowserLeftovers.scan().processes.isEmpty)
        }
    }

    /// Family names on Debian's real browsers: `firefox` names the firefox-esr agent, and `[agent-options.firefox]`
    /// reaches it — "force Firefox with these options" happens on a machine whose Firefox is firefox-esr.
    @Suite("Real browsers named by family", .onOwnThreads, .timeLimit(.minutes(3)))
    struct RealBrowserFamilyTests {
        @Test(
            "the family name selects the installed build, its options table applies, and a round trip works",
            arguments: [("firefox", "firefox-esr"), ("chromium", "chromium")])
        func familyRoundTrip(_ family: String, _ id: String) async throws {
            let folder = try TemporaryFolder()
            let userFile = folder.url.appendingPathComponent("config.toml")
            try "[agent-options.\(family)]\nheadless = true\nephemeral = true\n".write(
                to: userFile, atomically: true, encoding: .utf8)
            let sources = ConfigurationSources(
                environment: [:], systemFiles: [], userFile: userFile.path, managedFile: nil)
            var code = CodeConfiguration(preference: [family])
            code.namedAgent = family
            let catalog = try await BuiltPlugins.catalog()
            let selected = try AgentSelection.select(catalog: catalog, code: code, sources: sources)
            #expect(selected.candidate.descriptor.id == id)
            #expect(selected.candidate.descriptor.family ?? selected.candidate.descriptor.id == family)
            #expect(selected.options == ["headless": "true", "ephemeral": "true"])
            guard case .plugin(let entry) = selected.candidate.source else {
                Issue.record("\(id) comes from its plugin")
                return
            }
            let receiver = try #require(catalog.receiver(id: "loopback")).makeReceiver()
            let session = ExternalUserAgentSession(
                agent: entry.makeAgent(options: selected.options, dismissGrace: .seconds(15)),
                receiver: receiver, configuration: .init(expectedState: "st-family", timeout: .seconds(60)))
            let url = try await session.run { redirect in
                URL(string: redirect.absoluteString + "?code=from-\(family)&state=st-family")!
            }
            #expect(url.query == "code=from-\(family)&state=st-family")
            #expect(BrowserLeftovers.scan().processes.isEmpty)
        }
    }
}
