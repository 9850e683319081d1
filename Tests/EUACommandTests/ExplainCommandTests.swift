// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import Foundation
import Testing

/// `eua explain`, run as the built binary, with every configuration layer in a temporary folder.
@Suite("eua explain", .onOwnThreads, .timeLimit(.minutes(1)))
struct ExplainCommandTests {
    struct Report: Decodable {
        struct Candidate: Decodable {
            var id, kind: String
            var selected: Bool
            var reasons: [String]
        }
        struct File: Decodable { var file, layer, status: String }
        struct Setting: Decodable { var key, value, layer, source: String }
        struct Ignored: Decodable { var key, layer, source, pinnedBy: String }
        var chosen: String?
        var candidates: [Candidate]
        var config: [File]
        var settings: [Setting]
        var ignored: [Ignored]
        var warnings: [String]

        func candidate(_ id: String) -> Candidate? { candidates.first { $0.id == id } }
        func setting(_ key: String) -> Setting? { settings.first { $0.key == key } }
    }

    /// A home, an XDG system folder and a managed file path, all in `folder`; nothing from the real machine.
    struct Sandbox {
        let folder: TemporaryFolder
        var environment: [String: String]

        init() throws {
            folder = try TemporaryFolder("eua-explain")
            environment = [
                "HOME": folder.url.appendingPathComponent("home").path,
                "XDG_CONFIG_DIRS": folder.url.appendingPathComponent("xdg").path,
                "EUA_MANAGED_CONFIG": folder.url.appendingPathComponent("managed.toml").path,
                "EUA_PLUGIN_PATH": "", "EUA_AGENT": "", "EUA_AGENT_OPTIONS": "", "EUA_ALLOW_TEST_AGENTS": "",
                "BROWSER": "", "XDG_CONFIG_HOME": "",
            ]
        }

        var userFile: URL { folder.url.appendingPathComponent("home/.config/eua/config.toml") }
        var managedFile: URL { folder.url.appendingPathComponent("managed.toml") }

        func write(_ text: String, to url: URL) throws {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }

        func run(_ arguments: [String], _ extra: [String: String] = [:]) throws -> ProcessResult {
            try ProcessRunner.run(
                try TestPaths.product("eua"), ["explain"] + arguments,
                environment: environment.merging(extra) { $1 })
        }

        func report(_ arguments: [String] = [], _ extra: [String: String] = [:]) throws -> Report {
            let result = try run(["--json"] + arguments, extra)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            return try JSONDecoder().decode(Report.self, from: Data(result.stdout.utf8))
        }
    }

    @Test("EUA_AGENT=headless without permission: headless is not chosen and is refused as a test agent")
    func headlessRefused() throws {
        let sandbox = try Sandbox()
        let result = try sandbox.run(["--json"], ["EUA_AGENT": "headless"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("\"chosen\":null"), "chosen is always present")
        let report = try JSONDecoder().decode(Report.self, from: Data(result.stdout.utf8))
        #expect(report.chosen != "headless")
        let headless = try #require(report.candidate("headless"))
        #expect(headless.kind == "testDouble")
        #expect(!headless.selected)
        #expect(headless.reasons.contains { $0.contains("refused as a test agent") })
        #expect(report.setting("preference")?.source == "EUA_AGENT")
        #expect(report.setting("preference")?.layer == "environment")
        #expect(report.config.map(\.layer) == ["system", "user", "managed"])
        #expect(report.config.allSatisfy { $0.status == "not found" })
    }

    @Test("with EUA_ALLOW_TEST_AGENTS=1, headless is chosen and the reason names the variable")
    func headlessAllowed() throws {
        let report = try Sandbox().report([], ["EUA_AGENT": "headless", "EUA_ALLOW_TEST_AGENTS": "1"])
        #expect(report.chosen == "headless")
        #expect(report.candidate("headless")?.reasons.contains { $0.contains("EUA_ALLOW_TEST_AGENTS") } == true)
        #expect(
            report.candidate("example-c")?.reasons.contains { $0.contains("not in the preference order [headless]") }
                == true)
    }

    @Test("a user config broken on line 2 fails both forms with …/config.toml:2 on stderr", arguments: [true, false])
    func brokenConfig(_ json: Bool) throws {
        let sandbox = try Sandbox()
        try sandbox.write("preference = [\"headless\"]\nallow-test-agents = = true\n", to: sandbox.userFile)
        let result = try sandbox.run(json ? ["--json"] : [])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("\(sandbox.userFile.path):2"), "stderr: \(result.stderr)")
        #expect(result.stderr.contains("allow-test-agents"))
    }

    @Test("--agent and --agent-option are the code layer; a managed pin beats them and says so")
    func codeLayerAndManaged() throws {
        let sandbox = try Sandbox()
        var report = try sandbox.report(
            ["--agent", "example-c", "--agent-option", "profile=work"], ["EUA_ALLOW_TEST_AGENTS": "1"])
        #expect(report.chosen == "example-c")
        #expect(report.setting("agent-options.example-c.profile")?.layer == "code")

        try sandbox.write("# pinned\npreference = [\"headless\"]\n", to: sandbox.managedFile)
        report = try sandbox.report(["--agent", "example-c"], ["EUA_ALLOW_TEST_AGENTS": "1"])
        #expect(report.chosen == "headless")
        #expect(report.setting("preference")?.layer == "managed")
        #expect(report.setting("preference")?.source == "\(sandbox.managedFile.path):2")
        let ignored = try #require(report.ignored.first)
        #expect(
            ignored.key == "preference" && ignored.layer == "code"
                && ignored.pinnedBy == "\(sandbox.managedFile.path):2")
    }

    @Test("an embeddedWebView plugin asked for by --agent is never chosen; the reason cites RFC 8252 §8.12")
    func embedded() throws {
        let sandbox = try Sandbox()
        let plugins = try sandbox.folder.folder("plugins")
        _ = try CPluginBuilder.build(
            defines: ["EMBEDDED", "PLUGIN_ID=\"webview\""], name: "libwebview.so", in: plugins)
        try sandbox.write("allow-test-agents = true\n", to: sandbox.userFile)
        let report = try sandbox.report(["--agent", "webview"], ["EUA_PLUGIN_PATH": plugins.path])
        #expect(report.chosen == nil)
        let webview = try #require(report.candidate("webview"))
        #expect(webview.kind == "embeddedWebView")
        #expect(webview.reasons.first?.contains("RFC 8252 §8.12") == true)
    }

    @Test("$BROWSER is the environment layer's preference, followed by '*'")
    func browser() throws {
        let report = try Sandbox().report([], ["BROWSER": "/usr/bin/firefox %s", "EUA_ALLOW_TEST_AGENTS": "1"])
        #expect(report.setting("preference")?.value == "[\"firefox\", \"*\"]")
        #expect(report.setting("preference")?.source == "BROWSER")
        #expect(report.chosen != nil, "firefox-esr cannot run without a display, so '*' picks another agent")
        #expect(!report.warnings.contains { $0.contains("'firefox'") }, "'firefox' names firefox-esr, by its family")
        let unknown = try Sandbox().report([], ["BROWSER": "/usr/bin/lynx %s", "EUA_ALLOW_TEST_AGENTS": "1"])
        #expect(unknown.warnings.contains { $0.contains("'lynx'") && $0.contains("matches no agent") })
    }

    @Test("unknown keys are warnings naming the nearest key; the table form lines up")
    func tableForm() throws {
        let sandbox = try Sandbox()
        try sandbox.write("allow-test-agent = true\n", to: sandbox.userFile)
        let result = try sandbox.run([])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // No display and test agents refused: of the bundled agents only the manual one can run.
        #expect(lines.first == "Chosen: manual")
        let header = try #require(lines.first { $0.hasPrefix("ID ") })
        let why = try #require(header.range(of: "WHY")).lowerBound.utf16Offset(in: header)
        let rows = lines.drop { !$0.hasPrefix("ID ") }.dropFirst().prefix { !$0.isEmpty }
        let testAgents = rows.filter { $0.contains("testDouble") }
        #expect(testAgents.count == 2, "headless and example-c")
        for row in testAgents { #expect(row.dropFirst(why).hasPrefix("refused as a test agent"), "\(row)") }
        for row in rows where !row.hasPrefix("manual ") {
            #expect(!row.dropFirst(why).isEmpty, "every losing candidate says why: \(row)")
        }
        #expect(result.stdout.contains("Configuration files:"))
        #expect(result.stdout.contains("Settings (the layer that decided each):"))
        #expect(
            result.stdout.contains(
                "config.toml:1: unknown key 'allow-test-agent' is ignored; did you mean 'allow-test-agents'?"))
    }

    @Test("--agent-option without --agent is a usage error")
    func usage() throws {
        let result = try Sandbox().run(["--agent-option", "a=b"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("--agent-option needs --agent"))
    }
}
