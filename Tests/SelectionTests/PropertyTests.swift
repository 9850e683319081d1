// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentTesting
@testable import ExternalUserAgentCore
import Testing

/// A small deterministic generator, so a failure can be replayed from its seed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("Property: random configurations never select an embedded web view", .onOwnThreads)
struct PropertyTests {
    static let ids = ["webview", "firefox", "chromium", "oldweb", "offline", "fake", "tab", "typist", "*", "missing"]
    static let matchers = [
        "webview", "webview >=0", "* >=1", "*", "firefox>=115", "chromium 120..<130", "fake", "tab", "typist", "oldweb",
    ]

    static func file(_ random: inout SplitMix64) -> String? {
        guard Bool.random(using: &random) else { return nil }
        var lines: [String] = []
        func list(_ pool: [String]) -> String {
            "["
                + (0..<Int.random(in: 0...4, using: &random)).map { _ in "\"\(pool.randomElement(using: &random)!)\"" }
                .joined(separator: ", ") + "]"
        }
        if Bool.random(using: &random) { lines.append("preference = \(list(ids))") }
        if Bool.random(using: &random) { lines.append("allow-test-agents = \(Bool.random(using: &random))") }
        if Bool.random(using: &random) { lines.append("allow = \(list(matchers))") }
        if Bool.random(using: &random) { lines.append("deny = \(list(matchers))") }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test("300 seeded random combinations of system, user, environment, code and managed layers")
    func neverEmbedded() throws {
        let catalog = try TestPlugins.catalog()
        let embedded = FakeExternalUserAgent(id: "appview", kind: .embeddedWebView)
        for seed in UInt64(1)...300 {
            var random = SplitMix64(state: seed)
            var layers = Layers(system: Self.file(&random), user: Self.file(&random), managed: Self.file(&random))
            if Bool.random(using: &random) { layers.environment["EUA_AGENT"] = Self.ids.randomElement(using: &random)! }
            if Bool.random(using: &random) { layers.environment["EUA_ALLOW_TEST_AGENTS"] = "1" }
            if Bool.random(using: &random) { layers.environment["BROWSER"] = "webview:firefox" }
            if Bool.random(using: &random) {
                layers.code = CodeConfiguration(
                    preference: [Self.ids.randomElement(using: &random)!, "webview"],
                    allowTestAgents: Bool.random(using: &random))
            }
            let registered = Bool.random(using: &random) ? [AgentCandidate(agent: embedded)] : []
            let report = try layers.report(catalog, registered: registered)
            let chosenKind = report.chosen?.candidate.descriptor.kind
            #expect(chosenKind != .embeddedWebView, "seed \(seed) chose \(report.chosen?.id ?? "-")")
            for verdict in report.verdicts where verdict.candidate.descriptor.kind == .embeddedWebView {
                #expect(verdict.removedBy == .noEmbeddedWebViews, "seed \(seed)")
            }
        }
    }
}
