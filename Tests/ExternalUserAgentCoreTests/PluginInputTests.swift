// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import ExternalUserAgentTesting
import Foundation
import InMemoryLogging
import Logging
import Testing

/// What a plugin reports is checked before it is used: redirect URIs without userinfo, callbacks with userinfo
/// never matching, sizes bounded; and the checks the fuzz targets call never trap.
@Suite("Plugin input", .onOwnThreads, .timeLimit(.minutes(1)))
struct PluginInputTests {
    func receiver(listening uri: String) throws -> (PluginReceiver, URL, TemporaryFolder) {
        let folder = try TemporaryFolder()
        let lib = try CPluginBuilder.build(
            defines: ["NO_AGENT", "RECEIVER_ID=\"rx\"", "LISTENING_URI=\"\(uri)\""],
            name: "librx.so", in: folder.url)
        let catalog = PluginLoader(searchPath: PluginSearchPath(folders: [folder.path])).load()
        return (try #require(catalog.receiver(id: "rx")).makeReceiver(stopGrace: .seconds(2)), lib, folder)
    }

    @Test(
        "a receiver's redirect URI with userinfo (even empty) or a fragment is refused, naming the receiver",
        arguments: [
            ("http://user@127.0.0.1:9/cb", "userinfo"), ("http://user:pw@127.0.0.1:9/cb", "userinfo"),
            ("http://@127.0.0.1:9/cb", "userinfo"), ("http://127.0.0.1:9/cb#x", "fragment"),
            ("not a uri", "not an absolute URI"),
        ])
    func badRedirectURI(uri: String, problem: String) async throws {
        let (receiver, lib, _folder) = try receiver(listening: uri)
        _ = _folder
        let session = ExternalUserAgentSession(agent: FakeExternalUserAgent(), receiver: receiver)
        await #expect {
            _ = try await receiver.start(ReceiverRequest(timeout: .seconds(5)), session: session)
        } throws: { error in
            guard let error = error as? ExternalUserAgentError else { return false }
            return error.code == .receiverFailed && error.message.contains(problem)
                && error.message.contains("receiver 'rx' (\(lib.path))")
        }
        await receiver.stop()
    }

    @Test("a good redirect URI from the same fixture is accepted (the check is not a blanket refusal)")
    func goodRedirectURI() async throws {
        let (receiver, _, _folder) = try receiver(listening: "http://127.0.0.1:9/cb")
        _ = _folder
        let session = ExternalUserAgentSession(agent: FakeExternalUserAgent(), receiver: receiver)
        let uri = try await receiver.start(ReceiverRequest(timeout: .seconds(5)), session: session)
        #expect(uri.absoluteString == "http://127.0.0.1:9/cb")
        await receiver.stop()
    }

    /// Runs a session whose agent is the C fixture sending `redirect` as its redirect event.
    func runSession(redirect: String) async throws -> (Result<URL, ExternalUserAgentError>, [String]) {
        let folder = try TemporaryFolder()
        _ = try CPluginBuilder.build(defines: ["REDIRECT_URL=\"\(redirect)\""], name: "libredirect.so", in: folder.url)
        let logs = InMemoryLogHandler()
        var logger = Logger(label: "test") { _ in logs }
        logger.logLevel = .trace
        let catalog = await PluginLoader(searchPath: PluginSearchPath(folders: [folder.path]), logger: logger).load()
        let agent = try #require(catalog.agent(id: "misbehaving")).makeAgent(dismissGrace: .seconds(2))
        let session = ExternalUserAgentSession(
            agent: agent, receiver: FakeRedirectReceiver(),
            configuration: .init(expectedState: "s", timeout: .milliseconds(700)))
        let result: Result<URL, ExternalUserAgentError>
        do {
            result = .success(try await session.run { $0 })
        } catch {
            result = .failure(
                error as? ExternalUserAgentError ?? ExternalUserAgentError(.presentationFailed, "\(error)"))
        }
        return (result, logs.entries.map(\.message.description))
    }

    @Test("an agent's redirect with userinfo never matches: the session refuses it and goes on waiting")
    func redirectWithUserinfo() async throws {
        let (result, logs) = try await runSession(redirect: "http://user@127.0.0.1:49152/callback?code=c&state=s")
        guard case .failure(let error) = result else {
            Issue.record("the redirect with userinfo completed the session")
            return
        }
        #expect(error.code == .timedOut)
        #expect(logs.contains { $0.contains("refused the agent's redirect") && $0.contains("userinfo") }, "\(logs)")
    }

    @Test("the same redirect without userinfo completes the session")
    func redirectWithoutUserinfo() async throws {
        let (result, _) = try await runSession(redirect: "http://127.0.0.1:49152/callback?code=c&state=s")
        #expect(try result.get().query == "code=c&state=s")
    }

    @Test("a callback with userinfo handed to the session directly is refused with redirectMismatch")
    func resumeWithUserinfo() async throws {
        let receiver = FakeRedirectReceiver()
        let session = ExternalUserAgentSession(
            agent: FakeExternalUserAgent(script: .neverAnswers), receiver: receiver,
            configuration: .init(expectedState: "s", timeout: .seconds(5)))
        let running = Task { try await session.run { $0 } }
        while session.redirectURI == nil { try await Task.sleep(for: .milliseconds(5)) }
        for hostile in [
            "http://user@127.0.0.1:49152/callback?code=c&state=s", "http://:x@127.0.0.1:49152/callback?state=s",
        ] {
            #expect {
                try receiver.deliver(URL(string: hostile)!)
            } throws: { error in
                (error as? ExternalUserAgentError).map {
                    $0.code == .redirectMismatch && $0.message.contains("userinfo")
                } ?? false
            }
        }
        try receiver.deliver(URL(string: "http://127.0.0.1:49152/callback?code=c&state=s")!)
        #expect(try await running.value.query == "code=c&state=s")
    }

    @Test("the fuzz entry for describe() decodes and checks like the loader, and never traps")
    func fuzzDescription() {
        let good = #"{"id":"p","agents":[{"id":"a","kind":"manual","name":"A"}],"receivers":[{"id":"r","name":"R"}]}"#
        #expect(PluginInput.checkDescription(bytes: Array(good.utf8)))
        #expect(!PluginInput.checkDescription(bytes: Array(#"{"id":"*"}"#.utf8)))
        #expect(!PluginInput.checkDescription(bytes: Array(#"{"id":""}"#.utf8)))
        #expect(
            PluginInput.checkDescription(bytes: Array(#"{"id":"p","agents":[{"id":"*","kind":"manual"}]}"#.utf8)),
            "a bad component is skipped, the plugin stays")
        let deep =
            #"{"id":"p","agents":[{"id":"a","kind":"manual","details":{"d":"#
            + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}}]}"
        #expect(!PluginInput.checkDescription(bytes: Array(deep.utf8)))
        #expect(!PluginInput.checkDescription(bytes: Array(repeating: UInt8(ascii: " "), count: 2 << 20)))
        #expect(!PluginInput.checkDescription(bytes: [0xFF, 0xFE, 0x7B, 0x7D]))
        #expect(
            !PluginInput.checkDescription(bytes: Array(#"{"id":"p","agents":[{"id":"a","available":1e999}]}"#.utf8)))
        #expect(
            PluginInput.checkDescription(bytes: Array(#"{"id":"p"}"#.utf8) + [0] + Array("junk".utf8)),
            "read up to the first NUL, as from C")
    }

    @Test("the fuzz entry for events decodes and checks like an instance, and never traps")
    func fuzzEvent() {
        #expect(
            PluginInput.checkEvent(bytes: Array(#"{"event":"listening","redirect_uri":"http://127.0.0.1:1/cb"}"#.utf8)))
        #expect(
            !PluginInput.checkEvent(
                bytes: Array(#"{"event":"listening","redirect_uri":"http://u@127.0.0.1:1/cb"}"#.utf8)))
        #expect(!PluginInput.checkEvent(bytes: Array(#"{"event":"redirect","url":"::"}"#.utf8)))
        #expect(PluginInput.checkEvent(bytes: Array(#"{"event":"failed","error":{"code":"nope","message":"m"}}"#.utf8)))
        #expect(!PluginInput.checkEvent(bytes: Array(#"{"event":"exploded"}"#.utf8)))
        let huge = #"{"event":"callback","url":"http://127.0.0.1/?x="# + String(repeating: "a", count: 70_000) + #""}"#
        #expect(!PluginInput.checkEvent(bytes: Array(huge.utf8)))
        #expect(!PluginInput.checkEvent(bytes: Array(String(repeating: "{", count: 50_000).utf8)))
        #expect(!PluginInput.checkEvent(bytes: []))
    }
}
