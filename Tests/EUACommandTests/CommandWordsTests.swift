// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import Foundation
import Testing

/// What the built `eua` says, word for word where a new user tripped (issue 40, points 7 and 8): help text,
/// `eua doctor`'s problems and chain, and the reasons of `eua explain`.
@Suite("eua's words", .onOwnThreads, .timeLimit(.minutes(3)))
struct CommandWordsTests {
    /// The subcommands a `--help` text lists (`SUBCOMMANDS:` section), without `help`.
    static func subcommands(inHelp text: String) -> [String] {
        guard let section = text.range(of: "SUBCOMMANDS:\n") else { return [] }
        var names: [String] = []
        for line in text[section.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.isEmpty || !line.hasPrefix("  ") { break }
            guard line.hasPrefix("  "), !line.hasPrefix("   ") else { continue }
            let name = line.dropFirst(2).prefix { !$0.isWhitespace }
            if !name.isEmpty, name != "help" { names.append(String(name)) }
        }
        return names
    }

    /// Each option's entry of a `--help` text: its first line (two spaces, then the option) and its continuation lines.
    static func entries(inHelp text: String) -> [String] {
        var entries: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  "), !line.hasPrefix("   "), line.dropFirst(2).first.map({ "-<".contains($0) }) == true
            {
                entries.append(String(line))
            } else if line.hasPrefix("   "), !entries.isEmpty {
                entries[entries.count - 1] += " " + line.trimmingCharacters(in: .whitespaces)
            } else if !line.hasPrefix("   ") {
                entries.append("")
            }
        }
        return entries.filter { !$0.isEmpty }
    }

    /// How often an entry states a default: the parser's `(default: …)` and the help's own words for it.
    static func defaultMentions(_ entry: String) -> Int {
        let pattern = try! NSRegularExpression(
            pattern: #"\(default\b|\bdefault:|\bdefault \d|the default\)"#,
            options: [.caseInsensitive])
        return pattern.numberOfMatches(in: entry, range: NSRange(entry.startIndex..., in: entry))
    }

    @Test("no command's --help states an option's default twice")
    func helpDefaultsOnce() throws {
        let eua = try TestPaths.product("eua")
        var queue: [[String]] = [[]]
        var seen: [[String]] = []
        var repeated: [String] = []
        var read = 0
        while let command = queue.first {
            queue.removeFirst()
            seen.append(command)
            let help = try ProcessRunner.run(eua, command + ["--help"], timeout: 30)
            #expect(help.status == 0, "eua \(command.joined(separator: " ")) --help: \(help.stderr)")
            queue += Self.subcommands(inHelp: help.stdout).map { command + [$0] }
            let entries = Self.entries(inHelp: help.stdout)
            read += entries.count
            for entry in entries where Self.defaultMentions(entry) > 1 {
                repeated.append("eua \(command.joined(separator: " ")): \(entry)")
            }
        }
        #expect(
            seen.contains(["refresh"]) && seen.contains(["logout"]) && seen.contains(["scheme", "register"]),
            "the commands read: \(seen)")
        #expect(read > 150, "option entries read: \(read)")
        #expect(
            Self.defaultMentions("  --timeout <timeout>  Seconds (default: 60). (default: 60)") == 2,
            "the check sees one")
        #expect(repeated.isEmpty, "options whose help states the default twice:\n\(repeated.joined(separator: "\n"))")
    }

    @Test(
        "eua doctor lays a many-line problem out on lines (no literal \\x0a), and under a managed preference it suggests what works under the pin, not --agent"
    )
    func doctorProblemLines() throws {
        let sandbox = try ExplainCommandTests.Sandbox()
        try sandbox.write("preference = [\"no-such-agent\"]\n", to: sandbox.managedFile)
        let eua = try TestPaths.product("eua")
        let text = try ProcessRunner.run(eua, ["doctor"], environment: sandbox.environment, timeout: 60)
        #expect(text.status == 1, "\(text.stdout) \(text.stderr)")
        #expect(!text.stdout.contains("\\x0a"), "\(text.stdout)")
        #expect(text.stdout.contains("\n      - browser: "), "each step on a line of its own: \(text.stdout)")
        let problem = text.stdout.components(separatedBy: "\n\n").first ?? ""
        #expect(
            problem.contains(
                "The managed file pins preference = [\"no-such-agent\"] (\(sandbox.managedFile.path):1), "
                    + "so naming another agent changes nothing"), "\(problem)")
        #expect(problem.contains("(--flow device; ") && !problem.contains("--agent"), "\(problem)")

        // Without a pin, --agent is the advice.
        try sandbox.write("deny = [\"*\"]\n", to: sandbox.managedFile)
        let denied = try ProcessRunner.run(eua, ["doctor"], environment: sandbox.environment, timeout: 60)
        #expect(denied.stdout.contains("(--agent; "), "\(denied.stdout)")
    }

    @Test("eua doctor --issuer: its chain never asks for --issuer")
    func doctorWithIssuer() throws {
        let port = try OIDCProviderMock.freePort()
        let sandbox = try ExplainCommandTests.Sandbox()
        try sandbox.write("deny = [\"*\"]\n", to: sandbox.managedFile)
        let result = try ProcessRunner.run(
            try TestPaths.product("eua"),
            ["doctor", "--issuer", "http://127.0.0.1:\(port)", "--timeout", "5"],
            environment: sandbox.environment, timeout: 60)
        #expect(result.status == 1)
        #expect(!result.stdout.contains("give --issuer"), "\(result.stdout)")
        #expect(
            result.stdout.contains("Sign-in chain (eua login): undecided: the server's metadata could not be read"),
            "\(result.stdout)")
        let without = try ProcessRunner.run(
            try TestPaths.product("eua"), ["doctor"], environment: sandbox.environment,
            timeout: 60)
        #expect(without.stdout.contains("undecided without the server's metadata (give --issuer)"), "\(without.stdout)")
    }

    @Test("with --agent, a reason names the command line, not code")
    func agentFromCommandLine() throws {
        let report = try ExplainCommandTests.Sandbox().report(["--agent", "headless"], ["EUA_ALLOW_TEST_AGENTS": "1"])
        let reasons = report.candidates.flatMap(\.reasons)
        #expect(
            reasons.contains { $0.contains("the preference order [headless] from --agent on the command line") },
            "\(reasons)")
        #expect(!reasons.contains { $0.contains("from code") }, "\(reasons)")
        #expect(report.setting("preference")?.source == "--agent")
    }
}
