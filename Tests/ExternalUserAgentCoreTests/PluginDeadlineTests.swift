// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import ExternalUserAgentTesting
import Foundation
import InMemoryLogging
import Logging
import Testing

/// No wait on a plugin is unbounded: C plugins that never call back, never return from `start`, `cancel` or
/// `describe` all end in a clear error naming the plugin, within the deadline plus a little.
@Suite("Plugin deadlines", .onOwnThreads, .timeLimit(.minutes(1)))
struct PluginDeadlineTests {
    static let callTimeout = Duration.milliseconds(300)
    static let grace = Duration.milliseconds(300)
    static let slack = Duration.milliseconds(1500)

    struct Loaded {
        let folder: TemporaryFolder
        let lib: URL
        let catalog: PluginCatalog
        let logs: InMemoryLogHandler
    }

    func load(_ defines: [String], name: String = "libslow.so") throws -> Loaded {
        let folder = try TemporaryFolder()
        let lib = try CPluginBuilder.build(defines: defines, name: name, in: folder.url)
        let logs = InMemoryLogHandler()
        var logger = Logger(label: "test") { _ in logs }
        logger.logLevel = .trace
        let catalog = PluginLoader(
            searchPath: PluginSearchPath(folders: [folder.path]), logger: logger,
            callTimeout: Self.callTimeout
        ).load()
        return Loaded(folder: folder, lib: lib, catalog: catalog, logs: logs)
    }

    func request(timeout: Duration?) -> AgentRequest {
        AgentRequest(
            url: URL(string: "https://as.example/authorize")!,
            redirectURI: URL(string: "http://127.0.0.1:49152/callback")!, timeout: timeout)
    }

    func session(_ agent: any ExternalUserAgent) -> ExternalUserAgentSession {
        ExternalUserAgentSession(agent: agent, receiver: FakeRedirectReceiver())
    }

    /// Runs `work` and returns its error (or `nil`) and how long it took.
    func timed(_ work: () async throws -> Void) async -> (error: ExternalUserAgentError?, elapsed: Duration) {
        let started = ContinuousClock.now
        do {
            try await work()
            return (nil, .now - started)
        } catch {
            return (error as? ExternalUserAgentError, .now - started)
        }
    }

    @Test("an agent that never says it presented: timedOut after the request's deadline, naming agent and file")
    func agentNeverAnswers() async throws {
        let loaded = try load(["NEVER_ANSWERS"])
        let agent = try #require(loaded.catalog.agent(id: "misbehaving")).makeAgent(dismissGrace: Self.grace)
        let outcome = await timed {
            try await agent.present(request(timeout: .milliseconds(300)), session: session(agent))
        }
        let error = try #require(outcome.error)
        #expect(error.code == .timedOut)
        #expect(error.message.contains("agent 'misbehaving' (\(loaded.lib.path))"), "\(error.message)")
        #expect(error.message.contains("told to cancel"))
        #expect(outcome.elapsed < .milliseconds(300) + Self.slack)
        let dismissal = await timed { await agent.dismiss() }
        #expect(dismissal.elapsed < Self.grace + Self.slack)
    }

    @Test("an agent whose cancel never returns does not hang dismiss: it is given up, not freed, and logged")
    func cancelHangs() async throws {
        let loaded = try load(["NEVER_ANSWERS", "CANCEL_HANGS"])
        let agent = try #require(loaded.catalog.agent(id: "misbehaving")).makeAgent(dismissGrace: Self.grace)
        let outcome = await timed {
            try await agent.present(request(timeout: .milliseconds(200)), session: session(agent))
        }
        #expect(outcome.error?.code == .timedOut)
        let dismissal = await timed { await agent.dismiss() }
        #expect(dismissal.elapsed < Self.grace + Self.slack)
        let warnings = loaded.logs.entries.filter { $0.level == .warning }.map(\.message.description)
        #expect(warnings.contains { $0.contains("given up") && $0.contains("cancel() never returned") }, "\(warnings)")
    }

    @Test("a whole session with such an agent ends at its timeout plus the grace period")
    func sessionWithHangingAgent() async throws {
        let loaded = try load(["NEVER_ANSWERS", "CANCEL_HANGS"])
        let agent = try #require(loaded.catalog.agent(id: "misbehaving")).makeAgent(dismissGrace: Self.grace)
        let session = ExternalUserAgentSession(
            agent: agent, receiver: FakeRedirectReceiver(),
            configuration: .init(expectedState: "s", timeout: .milliseconds(300)))
        let outcome = await timed { _ = try await session.run { $0 } }
        #expect(outcome.error?.code == .timedOut)
        #expect(outcome.elapsed < .milliseconds(300) + Self.grace + Self.slack)
    }

    @Test("a start() that never returns: pluginProtocolViolation after the call timeout")
    func startHangs() async throws {
        let loaded = try load(["START_HANGS"])
        let agent = try #require(loaded.catalog.agent(id: "misbehaving")).makeAgent(dismissGrace: Self.grace)
        let outcome = await timed { try await agent.present(request(timeout: .seconds(30)), session: session(agent)) }
        let error = try #require(outcome.error)
        #expect(error.code == .pluginProtocolViolation)
        #expect(error.message.contains("start() did not return"), "\(error.message)")
        #expect(error.message.contains(loaded.lib.path))
        #expect(outcome.elapsed < Self.callTimeout + Self.slack)
        let dismissal = await timed { await agent.dismiss() }
        #expect(dismissal.elapsed < Self.grace + Self.slack)
        let warnings = loaded.logs.entries.map(\.message.description)
        #expect(
            warnings.contains { $0.contains("cancel() not called because its start() has not returned") }, "\(warnings)"
        )
    }

    @Test("a describe() that never returns: the plugin is refused after the call timeout, the others load")
    func describeHangs() throws {
        let folder = try TemporaryFolder()
        let slow = try CPluginBuilder.build(defines: ["DESCRIBE_HANGS"], name: "liba-slow.so", in: folder.url)
        _ = try CPluginBuilder.build(defines: ["PLUGIN_ID=\"fine\""], name: "libb-fine.so", in: folder.url)
        let started = ContinuousClock.now
        let catalog = PluginLoader(searchPath: PluginSearchPath(folders: [folder.path]), callTimeout: Self.callTimeout)
            .load()
        #expect(ContinuousClock.now - started < Self.callTimeout + Self.slack)
        #expect(catalog.agent(id: "fine") != nil)
        let failure = try #require(catalog.failures.first)
        #expect(failure.path == slow.path)
        #expect(failure.error.message.contains("describe() did not return within"))
    }

    @Test("a receiver that never gives its redirect URI: timedOut after the request's deadline, naming it")
    func receiverNeverListens() async throws {
        let loaded = try load(["NEVER_ANSWERS", "NO_AGENT", "RECEIVER_ID=\"rx\""])
        let entry = try #require(loaded.catalog.receiver(id: "rx"))
        let receiver = entry.makeReceiver(stopGrace: Self.grace)
        let session = ExternalUserAgentSession(agent: FakeExternalUserAgent(), receiver: receiver)
        let outcome = await timed {
            _ = try await receiver.start(
                ReceiverRequest(expectedState: "s", timeout: .milliseconds(300)), session: session)
        }
        let error = try #require(outcome.error)
        #expect(error.code == .timedOut)
        #expect(error.message.contains("receiver 'rx' (\(loaded.lib.path))"), "\(error.message)")
        #expect(outcome.elapsed < .milliseconds(300) + Self.slack)
        let stopping = await timed { await receiver.stop() }
        #expect(stopping.elapsed < Self.grace + Self.slack)
    }
}
