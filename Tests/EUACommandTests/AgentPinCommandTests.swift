// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import Foundation
import Testing

/// A managed file that pins Firefox pins the program that runs (issue 40, point 9): the built `eua explain` and
/// `eua doctor`, with real configuration files in a temporary XDG layout.
@Suite("eua explain and doctor under a managed agent pin", .onOwnThreads, .timeLimit(.minutes(2)))
struct AgentPinCommandTests {
    struct Report: Decodable {
        struct Candidate: Decodable {
            var id: String
            var options: [String: String]
            var reasons: [String]
        }
        struct Ignored: Decodable { var key, layer, source, pinnedBy, reason: String }
        struct Locked: Decodable {
            var agent: String
            var options, userOptions: [String]
            var pinnedBy: String
        }
        var chosen: String?
        var candidates: [Candidate]
        var ignored: [Ignored]
        var locked: [Locked]
        var warnings: [String]

        /// The Firefox agents found here (firefox, firefox-esr, …).
        var firefoxes: [Candidate] { candidates.filter { $0.id.hasPrefix("firefox") } }
    }

    static let userFile = """
        preference = ["firefox", "*"]
        [agent-options.firefox]
        executable = "/bin/true"
        extra-args = "--no-remote"
        profile = "work"
        [agent-options.firefox-esr]
        executable = "/bin/true"
        """

    func report(_ sandbox: ExplainCommandTests.Sandbox, _ arguments: [String] = []) throws -> Report {
        let result = try sandbox.run(["--json"] + arguments)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        return try JSONDecoder().decode(Report.self, from: Data(result.stdout.utf8))
    }

    @Test(
        "pinned by preference and allow with private = true: the user's executable is not the one chosen, and the report says which options are locked, from which file and line"
    )
    func userExecutableIgnored() throws {
        let sandbox = try ExplainCommandTests.Sandbox()
        try sandbox.write(Self.userFile, to: sandbox.userFile)
        // Without a pin, the user's executable is what would run: the control.
        let free = try report(sandbox)
        try #require(!free.firefoxes.isEmpty, "a Firefox is installed here: \(free.candidates.map(\.id))")
        #expect(free.firefoxes.allSatisfy { $0.options["executable"] == "/bin/true" })
        #expect(free.locked.isEmpty)

        try sandbox.write(
            "# the company's\npreference = [\"firefox\"]\nallow = [\"firefox\"]\n"
                + "[agent-options.firefox]\nprivate = true\n", to: sandbox.managedFile)
        let pinned = try report(sandbox)
        for firefox in pinned.firefoxes {
            #expect(firefox.options["executable"] == nil, "\(firefox.id): \(firefox.options)")
            #expect(firefox.options["extra-args"] == nil && firefox.options["private"] == "true", "\(firefox.options)")
            #expect(firefox.options["profile"] == "work", "a choice that is not locked stays the person's")
        }
        let at = "\(sandbox.managedFile.path):2"
        let lock = try #require(pinned.locked.first { $0.agent == "firefox" })
        #expect(
            lock.options == ["executable", "extra-args", "headless"] && lock.userOptions.isEmpty && lock.pinnedBy == at)
        let executable = try #require(pinned.ignored.first { $0.key == "agent-options.firefox.executable" })
        #expect(
            executable.layer == "user" && executable.source == "\(sandbox.userFile.path):3" && executable.pinnedBy == at
        )
        #expect(
            executable.reason.contains("pins the agent 'firefox'") && executable.reason.contains("user-options"),
            "\(executable.reason)")
        if pinned.firefoxes.contains(where: { $0.id == "firefox-esr" }) {
            #expect(
                pinned.ignored.contains { $0.key == "agent-options.firefox-esr.executable" && $0.pinnedBy == at },
                "the family's pin covers firefox-esr's own table too")
        }

        let text = try sandbox.run([])
        #expect(text.stdout.contains("Locked (agents the managed file pins"), "\(text.stdout)")
        #expect(text.stdout.contains("  firefox: executable, extra-args, headless, pinned by \(at)"), "\(text.stdout)")
        #expect(text.stdout.contains("agent-options.firefox.executable = \"/bin/true\" from user file"))

        // --agent-option is the code layer: locked too.
        let code = try report(sandbox, ["--agent", "firefox", "--agent-option", "executable=/bin/sh"])
        #expect(
            code.ignored.contains {
                $0.key == "agent-options.firefox.executable" && $0.layer == "code"
                    && $0.source == "--agent-option"
            })
        #expect(code.firefoxes.allSatisfy { $0.options["executable"] == nil })
    }

    @Test("Examples/managed.toml pins Firefox's executable: the managed one is chosen over the user's")
    func exampleManagedFile() throws {
        let sandbox = try ExplainCommandTests.Sandbox()
        try sandbox.write(Self.userFile, to: sandbox.userFile)
        let example = try String(
            contentsOf: TestPaths.packageRoot.appendingPathComponent("Examples/managed.toml"),
            encoding: .utf8)
        try sandbox.write(example, to: sandbox.managedFile)
        let report = try report(sandbox)
        try #require(!report.firefoxes.isEmpty)
        for firefox in report.firefoxes {
            let executable = try #require(firefox.options["executable"], "\(firefox.id): \(firefox.options)")
            #expect(executable != "/bin/true" && executable.hasPrefix("/usr/"), "\(firefox.id): \(executable)")
        }
        #expect(report.locked.map(\.agent).sorted() == ["chromium", "firefox"])
    }

    @Test("eua doctor says what the pin ignores, in text and JSON")
    func doctorSaysSo() throws {
        let sandbox = try ExplainCommandTests.Sandbox()
        try sandbox.write(Self.userFile, to: sandbox.userFile)
        try sandbox.write("preference = [\"firefox\"]\n", to: sandbox.managedFile)
        let eua = try TestPaths.product("eua")
        let json = try ProcessRunner.run(eua, ["doctor", "--json"], environment: sandbox.environment, timeout: 60)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any],
            "\(json.stdout) \(json.stderr)")
        let notes = try #require(object["notes"] as? [String])
        #expect(
            notes.contains {
                $0.contains("agent-options.firefox.executable = \"/bin/true\"")
                    && $0.contains("\(sandbox.managedFile.path):1 pins the agent 'firefox'")
            }, "\(notes)")
        let text = try ProcessRunner.run(eua, ["doctor"], environment: sandbox.environment, timeout: 60)
        #expect(
            text.stdout.contains("Note: agent-options.firefox.executable = \"/bin/true\" from user file"),
            "\(text.stdout)")
    }
}
