// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import Foundation
import Testing

/// The libraries' messages reach apps and the sign-in service's callers, so they name no flag and no command of
/// `eua`: the commands add their own spelling (`CommandHints`) when they print an error.
@Suite("Library messages name no eua flag", .onOwnThreads, .timeLimit(.minutes(2)))
struct LibraryMessagesTests {
    /// Every module an app or the service links, and every plugin.
    static let libraryFolders = [
        "Sources/ExternalUserAgentCore", "Sources/ExternalUserAgentOAuth", "Sources/ExternalUserAgentABI",
        "Sources/ExternalUserAgentRules", "Sources/ExternalUserAgentSystem", "Sources/ExternalUserAgentPluginKit",
        "Sources/ExternalUserAgentTesting", "Sources/CurlClient", "Sources/TOMLReader", "Plugins",
    ]

    @Test("no string literal in the library sources names a flag or a command of eua")
    func noFlagsInLibraryStrings() throws {
        let (commands, flags) = try Self.commandsAndFlags()
        #expect(
            flags.contains("--client-secret-file") && flags.contains("--agent") && flags.contains("--timeout"),
            "the flags read from eua's help: \(flags.sorted())")
        #expect(commands.contains("login") && commands.contains("agents"), "\(commands.sorted())")
        var found: [String] = []
        var files = 0
        for folder in Self.libraryFolders {
            let root = TestPaths.packageRoot.appendingPathComponent(folder)
            let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
            while let url = enumerator?.nextObject() as? URL {
                guard url.pathExtension == "swift" else { continue }
                files += 1
                let text = try String(contentsOf: url, encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let code = line.trimmingCharacters(in: .whitespaces)
                    if code.hasPrefix("//") { continue }
                    for literal in Self.stringLiterals(in: String(line)) {
                        for problem in Self.problems(in: literal, flags: flags, commands: commands) {
                            found.append(
                                "\(folder)/\(url.path.dropFirst(root.path.count + 1)):\(number + 1): \(problem)")
                        }
                    }
                }
            }
        }
        #expect(files > 100, "read \(files) Swift files")
        #expect(found.isEmpty, "library strings that speak to eua's command line:\n\(found.joined(separator: "\n"))")
    }

    @Test("a command prints the library's message with its own spelling of the remedy")
    func commandSpellsRemedy() throws {
        let folder = try TemporaryFolder()
        let result = try ProcessRunner.run(
            try TestPaths.product("eua"), ["token"],
            environment: [
                "XDG_CONFIG_HOME": folder.url.appendingPathComponent("config").path,
                "XDG_STATE_HOME": folder.url.appendingPathComponent("state").path,
                "XDG_DATA_HOME": folder.url.appendingPathComponent("data").path,
                "XDG_CACHE_HOME": folder.url.appendingPathComponent("cache").path,
            ])
        #expect(result.status != 0)
        #expect(result.stderr.contains("no account is signed in"), "\(result.stderr)")
        #expect(result.stderr.contains("sign in first ('eua login')"), "\(result.stderr)")
    }

    /// The command names (`login`, `scheme`, `register` of `scheme`) and every `--flag` that `eua`'s help shows.
    static func commandsAndFlags() throws -> (commands: Set<String>, flags: Set<String>) {
        let eua = try TestPaths.product("eua")
        var commands = Set<String>()
        var flags = Set<String>()
        var pending: [[String]] = [[]]
        while let path = pending.popLast() {
            let help = try ProcessRunner.run(eua, path + ["--help"])
            #expect(help.status == 0, "eua \(path.joined(separator: " ")) --help: \(help.stderr)")
            flags.formUnion(matches(of: #"--[a-z][a-z0-9-]*"#, in: help.stdout))
            guard let range = help.stdout.range(of: "SUBCOMMANDS:") else { continue }
            for line in help.stdout[range.upperBound...].split(separator: "\n") {
                guard line.hasPrefix("  "), !line.hasPrefix("   "),
                    let name = line.split(separator: " ").first.map(String.init),
                    name.first?.isLetter == true, name != "help", !commands.contains(name)
                else { continue }
                commands.insert(name)
                if path.count < 2 { pending.append(path + [name]) }
            }
        }
        return (commands, flags)
    }

    /// What in `literal` names a flag of `eua` (`--timeout`) or a command (`eua agents`). A literal that is one
    /// flag alone (`"--version"`, `"--user-data-dir=\(folder)"`) is another program's argument, not a message.
    static func problems(in literal: String, flags: Set<String>, commands: Set<String>) -> [String] {
        if literal.firstMatch(of: #/^--[a-z][a-z0-9-]*(=.*)?$/#) != nil { return [] }
        var problems = matches(of: #"--[a-z][a-z0-9-]*"#, in: literal).filter(flags.contains).map { "names \($0)" }
        for command in matches(of: #"\beua [a-z][a-z-]*"#, in: literal) {
            if let name = command.split(separator: " ").last, commands.contains(String(name)) {
                problems.append("names the command '\(command)'")
            }
        }
        return problems
    }

    /// The contents of the string literals of one line of Swift (interpolations included as written).
    static func stringLiterals(in line: String) -> [String] {
        var literals: [String] = []
        var current: String?
        var escaped = false
        for character in line {
            if var text = current {
                if escaped {
                    escaped = false
                    text.append(character)
                    current = text
                    continue
                }
                if character == "\\" {
                    escaped = true
                    text.append(character)
                    current = text
                    continue
                }
                if character == "\"" {
                    literals.append(text)
                    current = nil
                    continue
                }
                text.append(character)
                current = text
            } else if character == "\"" {
                current = ""
            }
        }
        if let current { literals.append(current) }
        return literals
    }

    static func matches(of pattern: String, in text: String) -> [String] {
        guard let regex = try? Regex(pattern) else { return [] }
        return text.matches(of: regex).map { String(text[$0.range]) }
    }
}
