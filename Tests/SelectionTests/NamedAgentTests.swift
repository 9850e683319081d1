// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore
import ExternalUserAgentTesting
import EUATestSupport
import Testing

/// An agent named explicitly (`--agent`, the code layer) is used even where it says it cannot run,
/// but never past rules 1–2 or the managed file.
@Suite("Named agent", .onOwnThreads)
struct NamedAgentTests {
    let empty = ConfigurationSources(environment: [:], systemFiles: [], userFile: nil, managedFile: nil)

    func candidates() -> [AgentCandidate] {
        [
            AgentCandidate(
                agent: FakeExternalUserAgent(id: "browser", kind: .externalBrowser),
                available: false, reasons: ["no display"]),
            AgentCandidate(agent: FakeExternalUserAgent(id: "webview", kind: .embeddedWebView)),
            AgentCandidate(agent: FakeExternalUserAgent(id: "fake", kind: .testDouble)),
        ]
    }

    func named(_ id: String) -> CodeConfiguration {
        var code = CodeConfiguration(preference: [id])
        code.namedAgent = id
        return code
    }

    func report(_ code: CodeConfiguration) throws -> SelectionReport {
        AgentSelection.evaluate(
            candidates: candidates(), configuration: try Configuration.load(sources: empty, code: code))
    }

    @Test("an unavailable agent named explicitly is chosen, and the report says why")
    func unavailableButNamed() throws {
        let report = try report(named("browser"))
        #expect(report.chosen?.id == "browser")
        #expect(report.chosen?.reasons.contains { $0.contains("used anyway because it was named explicitly") } == true)
    }

    @Test("without naming it, the same agent is not chosen")
    func unavailableByPreference() throws {
        let report = try report(CodeConfiguration(preference: ["browser"]))
        #expect(report.chosen == nil)
    }

    @Test("naming never gets past rules 1 and 2", arguments: ["webview", "fake"])
    func rulesOneAndTwo(_ id: String) throws {
        let report = try report(named(id))
        #expect(report.chosen == nil)
    }
}
