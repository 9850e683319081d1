// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import Foundation
import Testing

/// Text from a plugin, a server or a configuration file never reaches the terminal raw: the built `eua`
/// escapes control characters and bidi controls in every human-readable line, log line and
/// `--json` output.
@Suite("Terminal escapes through eua", .onOwnThreads, .timeLimit(.minutes(2)))
struct TerminalEscapeCommandTests {
    /// A reason as the plugin writes it in JSON: ESC (a colour), C1 CSI, a bidi override, a line break, DEL.
    static let reasonJSON = #"\\u001b[31mred\\u009b2J\\u202eevil\\nfake line\\u007f"#
    /// The same reason once decoded.
    static let reason = "\u{1B}[31mred\u{9B}2J\u{202E}evil\nfake line\u{7F}"
    /// How it must look on the terminal.
    static let shown = #"\x1b[31mred\x9b2J\u{202e}evil\x0afake line\x7f"#

    /// What no output may contain.
    static func expectNoRawControls(_ text: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let bad = text.unicodeScalars.filter {
            ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) || (0x202A...0x202E).contains($0.value)
        }
        #expect(
            bad.isEmpty, "\(what) carries raw control characters: \(bad.map { String($0.value, radix: 16) })",
            sourceLocation: sourceLocation)
    }

    @discardableResult
    func hostilePlugin(_ sandbox: PluginSandbox, extra: [String] = []) throws -> URL {
        try sandbox.plugin(
            [
                "KIND=\"externalBrowser\"", "UNAVAILABLE=\"\(Self.reasonJSON)\"",
                "AGENT_VERSION=\"\\\\u001b]0;title\\\\u0007\"",
                "LOG_MESSAGE=\"plugin says \\033[2J\\033]0;pwned\\007\"",
            ] + extra)
    }

    @Test("eua agents: the reason, version and the plugin's log line are escaped; the table keeps its rows")
    func agentsTable() throws {
        let sandbox = try PluginSandbox()
        try hostilePlugin(sandbox)
        let (result, _) = try sandbox.run(["agents"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        Self.expectNoRawControls(result.stdout, "stdout")
        Self.expectNoRawControls(result.stderr, "stderr")
        #expect(result.stdout.contains("misbehaving: \(Self.shown)"), "\(result.stdout)")
        #expect(result.stdout.contains(#"\x1b]0;title\x07"#))
        #expect(result.stderr.contains(#"plugin says \x1b[2J\x1b]0;pwned\x07"#), "\(result.stderr)")
    }

    @Test("eua agents --json: control characters are JSON escapes, and the values are unchanged")
    func agentsJSON() throws {
        struct Listing: Decodable {
            struct Agent: Decodable {
                var id: String
                var version: String?
                var reasons: [String]
            }
            var agents: [Agent]
        }
        let sandbox = try PluginSandbox()
        try hostilePlugin(sandbox)
        let (result, _) = try sandbox.run(["agents", "--json"])
        #expect(result.status == 0)
        Self.expectNoRawControls(result.stdout, "the JSON")
        #expect(result.stdout.contains(#"\u001b[31mred\u009b2J\u202eevil\nfake line\u007f"#), "\(result.stdout)")
        let listing = try JSONDecoder().decode(Listing.self, from: Data(result.stdout.utf8))
        let agent = try #require(listing.agents.first { $0.id == "misbehaving" })
        #expect(agent.reasons == [Self.reason])
        #expect(agent.version == "\u{1B}]0;title\u{07}")
    }

    @Test("eua capabilities: the reason is escaped in the table")
    func capabilities() throws {
        let sandbox = try PluginSandbox()
        try hostilePlugin(sandbox)
        let (result, _) = try sandbox.run(["capabilities"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        Self.expectNoRawControls(result.stdout, "stdout")
        #expect(result.stdout.contains(Self.shown), "\(result.stdout)")
    }

    @Test("eua explain: reasons from a plugin are escaped, in the table and in --json")
    func explain() throws {
        let sandbox = try PluginSandbox()
        try hostilePlugin(sandbox)
        let table = try sandbox.run(["explain"]).result
        #expect(table.status == 0, "stderr: \(table.stderr)")
        Self.expectNoRawControls(table.stdout, "stdout")
        Self.expectNoRawControls(table.stderr, "stderr")
        #expect(table.stdout.contains(Self.shown), "\(table.stdout)")
        let json = try sandbox.run(["explain", "--json"]).result
        Self.expectNoRawControls(json.stdout, "the JSON")
    }

    @Test("eua explain: a configuration value with control characters is escaped in the error")
    func explainConfiguration() throws {
        let sandbox = try PluginSandbox()
        try sandbox.configure(#"preference = ["\u001b[2Jx\u202e"]"# + "\n")
        let (result, _) = try sandbox.run(["explain"])
        #expect(result.status == 1, "stderr: \(result.stderr)")
        Self.expectNoRawControls(result.stderr, "stderr")
        #expect(result.stderr.contains(#"\x1b[2Jx\u{202e}"#), "\(result.stderr)")
    }

    @Test("eua open: a plugin's failure message is escaped")
    func openFailure() throws {
        let sandbox = try PluginSandbox()
        let lib = try sandbox.plugin([#"FAIL_MESSAGE="\\u001b]0;pwned\\u0007 no browser""#])
        let (result, _) = try sandbox.run(["open", "--agent", "misbehaving", "https://example.com/"])
        #expect(result.status == 1, "stderr: \(result.stderr)")
        Self.expectNoRawControls(result.stderr, "stderr")
        #expect(
            result.stderr.contains(#"agent 'misbehaving' (\#(lib.path)): \x1b]0;pwned\x07 no browser"#),
            "\(result.stderr)")
    }

    @Test("eua login: a server's issuer with control characters is escaped in the error, and nothing is saved")
    func loginServerText() async throws {
        let sandbox = try PluginSandbox()
        try sandbox.plugin([])
        let site = try sandbox.folder.folder("site")
        let wellKnown = site.appendingPathComponent(".well-known")
        try FileManager.default.createDirectory(at: wellKnown, withIntermediateDirectories: true)
        try Data(
            #"{"issuer":"https://evil.example/\u001b]0;pwned\u0007\u202e","authorization_endpoint":"https://evil.example/a","token_endpoint":"https://evil.example/t","response_types_supported":["code"]}"#
                .utf8
        )
        .write(to: wellKnown.appendingPathComponent("openid-configuration"))
        guard let python = ProcessRunner.which("python3") else {
            Issue.record("python3 is not on PATH")
            return
        }
        let server = try InteractiveProcess(
            python,
            [
                "-c",
                """
                import http.server, os, sys
                os.chdir(sys.argv[1])
                server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
                print("port", server.server_address[1], file=sys.stderr, flush=True)
                server.serve_forever()
                """, site.path,
            ], environment: [:])
        defer { server.signal(SIGTERM) }
        let announced = try await offThePool { try server.waitForStderr(timeout: 20) { $0.contains("\n") } }
        let port = try #require(announced.split(separator: "\n").first?.split(separator: " ").last.map(String.init))
        let run = try await offThePool {
            try sandbox.run([
                "login", "--issuer", "http://127.0.0.1:\(port)", "--client-id", "app", "--agent", "misbehaving",
            ])
        }
        #expect(run.result.status != 0)
        Self.expectNoRawControls(run.result.stderr, "stderr")
        #expect(
            run.result.stderr.contains(#"names issuer 'https://evil.example/\x1b]0;pwned\x07\u{202e}'"#),
            "\(run.result.stderr)")
        #expect(sandbox.savedStateFiles.isEmpty, "nothing was saved: \(sandbox.savedStateFiles)")
    }
}
