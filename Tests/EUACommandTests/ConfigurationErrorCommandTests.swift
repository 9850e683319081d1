// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import Foundation
import Testing

/// `eua` run as the built binary against configuration files someone else could write, or written to break
/// the reader: it must stop with the file named and nothing launched, saved or lost — never crash or hang.
@Suite("eua with an untrusted or hostile configuration", .onOwnThreads, .timeLimit(.minutes(2)))
struct ConfigurationErrorCommandTests {
    /// An isolated desktop (its fake browser registered) with the managed file in its `etc` folder.
    struct Sandbox {
        let desktop: IsolatedDesktop
        let etc: URL

        init() throws {
            desktop = try IsolatedDesktop(lingerSeconds: 0)
            etc = try desktop.folder.folder("etc")
        }

        var managedFile: URL { etc.appendingPathComponent("managed.toml") }
        var userFile: URL { desktop.folder.url.appendingPathComponent("config/eua/config.toml") }

        func write(_ bytes: Data, to url: URL, mode: Int = 0o644) throws {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o755])
            try bytes.write(to: url)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
        }

        func eua(_ arguments: [String]) throws -> ProcessResult {
            try ProcessRunner.run(
                try TestPaths.product("eua"), arguments,
                environment: desktop.environment(["EUA_MANAGED_CONFIG": managedFile.path]),
                replacingEnvironment: true)
        }
    }

    @Test(
        "an untrusted managed file stops eua open, login and explain with its name; nothing is launched or saved",
        arguments: ["writable file", "writable folder", "link to a writable file"])
    func untrustedManaged(_ setUp: String) throws {
        let sandbox = try Sandbox()
        let policy = Data("preference = [\"firefox\"]\nallow-test-agents = false\n".utf8)
        let problem: String
        switch setUp {
        case "writable file":
            try sandbox.write(policy, to: sandbox.managedFile, mode: 0o666)
            problem = "\(sandbox.managedFile.path) is writable by everyone"
        case "writable folder":
            try sandbox.write(policy, to: sandbox.managedFile)
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: sandbox.etc.path)
            problem = "its folder \(sandbox.etc.path) is writable by everyone"
        default:
            let target = sandbox.desktop.folder.url.appendingPathComponent("policy.toml")
            try sandbox.write(policy, to: target, mode: 0o664)
            try FileManager.default.createSymbolicLink(at: sandbox.managedFile, withDestinationURL: target)
            problem = "\(target.path) is writable by its group"
        }
        let message = "managed configuration file \(sandbox.managedFile.path) is refused: \(problem)"
        let saved = sandbox.desktop.folder.url.appendingPathComponent("state/saved.json")
        let savedText = Data("{\"kept\": true}\n".utf8)
        try sandbox.write(savedText, to: saved, mode: 0o600)
        let fresh = sandbox.desktop.folder.url.appendingPathComponent("state/fresh.json")

        let open = try sandbox.eua(["open", "https://example.com/"])
        #expect(open.status == 2, "\(open.stderr)")
        #expect(open.stderr.contains("eua open: \(message)"), "\(open.stderr)")

        for state in [saved, fresh] {
            let login = try sandbox.eua([
                "login", "--issuer", "https://127.0.0.1:9/", "--client-id", "c",
                "--state-file", state.path,
            ])
            #expect(login.status == 1, "\(login.stderr)")
            #expect(login.stderr.contains(message), "\(login.stderr)")
            #expect(login.stdout.isEmpty)
        }
        #expect(try Data(contentsOf: saved) == savedText, "the saved state is untouched")
        #expect(!FileManager.default.fileExists(atPath: fresh.path), "no state is saved")

        let explain = try sandbox.eua(["explain", "--json"])
        #expect(explain.status == 1, "\(explain.stderr)")
        #expect(explain.stderr.contains("eua explain: \(message)"), "\(explain.stderr)")
        #expect(explain.stdout.isEmpty)

        #expect(sandbox.desktop.recordedArguments(timeout: 0.5) == nil, "no browser was launched")
    }

    @Test(
        "a hostile user file: eua explain exits 1 with file:line:column and what to do, never a signal",
        arguments: [
            (
                "9,300-part key", Data((String(repeating: "a.", count: 9_300) + "a = 1\n").utf8),
                ":1:257: not valid TOML",
                "expected values nested at most 128 deep"
            ),
            (
                "100,000-part header", Data(("# x\n[" + String(repeating: "a.", count: 100_000) + "a]\n").utf8),
                ":2:258: not valid TOML", "expected values nested at most 128 deep"
            ),
            (
                "100,000 nested arrays", Data(("x = " + String(repeating: "[", count: 100_000)).utf8),
                ":1:133: not valid TOML",
                "an array element 129 deep"
            ),
            (
                "Latin-1", Data("[pages]\nsuccess = \"/caf".utf8) + Data([0xE9]) + Data(".html\"\n".utf8),
                ":2:16: not valid TOML: expected UTF-8 text, found the byte 0xE9", "save the file as UTF-8"
            ),
            (
                "over 1 MiB", Data(("#" + String(repeating: " ", count: 1 << 20)).utf8),
                ": the file is larger than the 1 MiB (1048576 bytes) a configuration file may have (it has 1048577 bytes)",
                "check that the path names the configuration file"
            ),
        ])
    func hostileUserFile(_ name: String, _ bytes: Data, _ location: String, _ expected: String) throws {
        let sandbox = try Sandbox()
        try sandbox.write(bytes, to: sandbox.userFile)
        let result = try sandbox.eua(["explain"])
        #expect(result.status == 1, "\(name): \(result.stderr.prefix(500))")
        #expect(
            result.stderr.hasPrefix("eua explain: \(sandbox.userFile.path)\(location)"),
            "\(name): \(result.stderr.prefix(500))")
        #expect(result.stderr.contains(expected), "\(name): \(result.stderr.prefix(500))")
        #expect(result.stderr.utf8.count < 1_000, "\(name): the message is one short line")
        #expect(result.stdout.isEmpty)
    }

    @Test("a 160 KB one-line array and 100 KB of deep dotted keys are read whole: eua explain warns about both keys")
    func largeUserFile() throws {
        let sandbox = try Sandbox()
        let array = "x = [" + Array(repeating: "1", count: 80_000).joined(separator: ",") + "]\n"
        let dotted = (0..<500).map { String(repeating: "a.", count: 100) + "k\($0) = 1\n" }.joined()
        try sandbox.write(Data((array + dotted).utf8), to: sandbox.userFile)
        let result = try sandbox.eua(["explain", "--json"])
        #expect(result.status == 0, "\(result.stderr.prefix(500))")
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let warnings = try #require(report?["warnings"] as? [String])
        #expect(warnings.contains { $0.contains("config.toml:1: unknown key 'x'") }, "\(warnings)")
        #expect(warnings.contains { $0.contains("config.toml:2: unknown key 'a'") }, "\(warnings)")
    }
}
