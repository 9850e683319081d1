// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import ExternalUserAgentTesting
import Foundation
import Testing

/// The example plugin written in plain C loads and runs a session like any other.
@Suite("C example plugin", .onOwnThreads, .timeLimit(.minutes(1)))
struct EUAExampleCTests {
    @Test("a session through the C agent completes with a fresh code and the request's state")
    func session() async throws {
        let entry = try #require(try await BuiltPlugins.catalog().agent(id: "example-c"))
        #expect(entry.descriptor.kind == .testDouble)
        #expect(entry.descriptor.name == "Example C agent (approves at once)")
        var codes: [String] = []
        for _ in 0..<2 {
            let session = ExternalUserAgentSession(
                agent: entry.makeAgent(), receiver: FakeRedirectReceiver(),
                configuration: .init(expectedState: "abc123", timeout: .seconds(10)))
            let url = try await session.run { redirect in
                URL(string: "https://as.example/authorize?redirect_uri=\(redirect.absoluteString)&state=abc123")!
            }
            let items = URLComponents(url: url, resolvingAgainstBaseURL: false)!.queryItems!
            #expect(items.first { $0.name == "state" }?.value == "abc123")
            let code = try #require(items.first { $0.name == "code" }?.value)
            #expect(code.count == 32)
            codes.append(code)
        }
        #expect(codes[0] != codes[1])
    }

    @Test("options are refused with the plugin's own message")
    func refusesOptions() async throws {
        let entry = try #require(try await BuiltPlugins.catalog().agent(id: "example-c"))
        let session = ExternalUserAgentSession(
            agent: entry.makeAgent(options: ["x": "1"]), receiver: FakeRedirectReceiver())
        await #expect {
            try await session.run { $0 }
        } throws: { ($0 as? ExternalUserAgentError)?.message.contains("takes no options") == true }
    }
}
