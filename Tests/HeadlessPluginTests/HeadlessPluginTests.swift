// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import ExternalUserAgentTesting
import Foundation
import Testing

/// The headless test agent, loaded through dlopen like any plugin.
@Suite("Headless plugin", .onOwnThreads, .timeLimit(.minutes(1)))
struct HeadlessPluginTests {
    func headless() throws -> PluginAgentEntry {
        try #require(try BuiltPlugins.catalog().agent(id: "headless"))
    }

    @Test("it describes itself as a test double")
    func describes() throws {
        let entry = try headless()
        #expect(entry.descriptor.kind == .testDouble)
        #expect(entry.descriptor.version == "1.0.0")
        #expect(entry.available)
    }

    @Test("it delivers the redirect over real HTTP to an http redirect URI, with the request's state")
    func deliversOverHTTP() async throws {
        // The testing kit's server stands in for the receiver's listener: it logs every request it gets.
        try await LocalAuthorizationServer.withServer { server in
            let redirect = URL(string: "\(server.issuer)/cb")!
            let receiver = FakeRedirectReceiver(redirectURI: redirect)
            let agent = try headless().makeAgent(options: ["param.code": "c0de", "param.iss": "https://as.example"])
            let session = ExternalUserAgentSession(
                agent: agent, receiver: receiver,
                configuration: .init(expectedState: "st", timeout: .seconds(10)))
            let running = Task {
                try await session.run { _ in URL(string: "https://as.example/authorize?state=st&x=1")! }
            }
            var request = server.requestLog.first
            for _ in 0..<1000 where request == nil {
                try await Task.sleep(for: .milliseconds(10))
                request = server.requestLog.first
            }
            let delivered = try #require(request, "the agent never reached \(redirect)")
            #expect(delivered.requestLine == "GET /cb?code=c0de&state=st&iss=https://as.example HTTP/1.1")
            #expect(delivered.header("Host") == "127.0.0.1:\(server.port)")
            // The server is not a receiver: hand the same URL on, as a loopback receiver would.
            try receiver.deliver(URL(string: "\(server.issuer)/cb?code=c0de&state=st")!)
            _ = try await running.value
        }
    }

    @Test("an unreachable HTTP receiver is a presentation failure that names where")
    func unreachable() async throws {
        let receiver = FakeRedirectReceiver(redirectURI: URL(string: "http://127.0.0.1:9/cb")!)
        let session = ExternalUserAgentSession(
            agent: try headless().makeAgent(), receiver: receiver,
            configuration: .init(expectedState: "st", timeout: .seconds(10)))
        await #expect {
            try await session.run { _ in URL(string: "https://as.example/authorize?state=st")! }
        } throws: { error in
            guard let error = error as? ExternalUserAgentError else { return false }
            return error.code == .presentationFailed && error.message.contains("127.0.0.1:9")
        }
    }

    @Test("a custom-scheme redirect goes straight to the session")
    func customScheme() async throws {
        let receiver = FakeRedirectReceiver(redirectURI: URL(string: "com.example.app:/oauth2redirect")!)
        let session = ExternalUserAgentSession(
            agent: try headless().makeAgent(options: ["param.code": "z"]),
            receiver: receiver,
            configuration: .init(expectedState: "st", timeout: .seconds(10)))
        let url = try await session.run { _ in URL(string: "https://as.example/authorize?state=st")! }
        #expect(url.absoluteString == "com.example.app:/oauth2redirect?code=z&state=st")
    }

    @Test("an error redirect carries error and error_description")
    func errorRedirect() async throws {
        let session = ExternalUserAgentSession(
            agent: try headless().makeAgent(options: [
                "mode": "error", "error": "access_denied",
                "error_description": "no thanks", "deliver": "session",
            ]),
            receiver: FakeRedirectReceiver(), configuration: .init(expectedState: "st"))
        let url = try await session.run { _ in URL(string: "https://as.example/authorize?state=st")! }
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)!.queryItems!
        #expect(items.map(\.name) == ["error", "error_description", "state"])
        #expect(items.first { $0.name == "error_description" }?.value == "no thanks")
        #expect(!items.contains { $0.name == "code" })
    }

    @Test(
        "options that cannot work are refused with the reason",
        arguments: [
            (["mode": "dance"], "mode=dance"),
            (["colour": "blue"], "'colour' is unknown"),
            (["count": "0"], "count=0"),
            (["delay-ms": "soon"], "delay-ms=soon"),
            (["deliver": "pigeon"], "deliver=pigeon"),
        ])
    func badOptions(_ options: [String: String], _ expected: String) async throws {
        let session = ExternalUserAgentSession(
            agent: try headless().makeAgent(options: options),
            receiver: FakeRedirectReceiver())
        await #expect {
            try await session.run { $0 }
        } throws: { error in
            guard let error = error as? ExternalUserAgentError else { return false }
            return error.code == .invalidOptions && error.message.contains(expected)
                && error.message.contains("libEUAHeadless.so")
        }
    }

    @Test("delay-ms waits before answering")
    func delay() async throws {
        let session = ExternalUserAgentSession(
            agent: try headless().makeAgent(options: ["delay-ms": "300", "deliver": "session"]),
            receiver: FakeRedirectReceiver(), configuration: .init(expectedState: nil))
        let clock = ContinuousClock()
        let elapsed = try await clock.measure { _ = try await session.run { $0 } }
        #expect(elapsed >= .milliseconds(300))
    }
}
