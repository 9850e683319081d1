// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import Foundation
import Testing

/// `eua demo`, the built binary, on a machine with no display: the whole sign-in against the local
/// authorization server it starts in process, through the loopback receiver and headless agent plugins.
@Suite("eua demo, end to end", .onOwnThreads)
struct DemoCommandTests {
    static let steps = [
        "server", "discovery", "receiver", "agent", "redirect", "tokens", "id_token", "state", "sign_out",
    ]

    /// Runs `eua demo` with no display, no EUA_* variables, and a temporary folder of its own.
    func demo(_ arguments: [String], folder: TemporaryFolder, temporaryFolder: String? = nil) async throws
        -> ProcessResult
    {
        let executable = try TestPaths.product("eua")
        var environment = ProcessInfo.processInfo.environment.filter {
            $0.key != "DISPLAY" && $0.key != "WAYLAND_DISPLAY" && !$0.key.hasPrefix("EUA_")
        }
        environment["TMPDIR"] = temporaryFolder ?? folder.path
        let fixed = environment
        return try await offThePool {
            try ProcessRunner.run(
                executable, ["demo"] + arguments, environment: fixed, replacingEnvironment: true,
                timeout: 90)
        }
    }

    func steps(_ json: [String: Any]) throws -> [(step: String, status: String, detail: String)] {
        let steps = try #require(json["steps"] as? [[String: Any]])
        return steps.map { ($0["step"] as? String ?? "", $0["status"] as? String ?? "", $0["detail"] as? String ?? "") }
    }

    @Test(
        "--json with no display: exit 0, every step passed, the state file was private and is gone after the sign-out")
    func json() async throws {
        let folder = try TemporaryFolder()
        let result = try await demo(["--json"], folder: folder)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let json = try LoginCommandTests.lastJSON(result.stdout)
        #expect(json["ok"] as? Bool == true)
        let steps = try steps(json)
        #expect(steps.map(\.step) == Self.steps)
        #expect(steps.allSatisfy { $0.status == "passed" }, "\(steps)")
        #expect(steps.first { $0.step == "state" }?.detail.contains("mode 0600") == true)
        let signOut = try #require(steps.last?.detail)
        #expect(
            signOut.contains("refresh token and access token revoked at http://127.0.0.1:")
                && signOut.contains(
                    "/end_session (client_id, no ID token in the URL) and the browser came back to http://127.0.0.1:")
                && signOut.hasSuffix("state file removed"), "\(signOut)")
        let stateFile = try #require(json["state_file"] as? String)
        #expect(stateFile.hasPrefix(folder.path + "/eua-demo-"), "a new folder in TMPDIR")
        #expect(!FileManager.default.fileExists(atPath: stateFile))
        #expect(!result.stdout.contains("access_token"), "no token on screen")
    }

    @Test("--no-sign-out --json: every step passed, the state file stays, private")
    func staySignedIn() async throws {
        let folder = try TemporaryFolder()
        let result = try await demo(["--no-sign-out", "--json"], folder: folder)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let json = try LoginCommandTests.lastJSON(result.stdout)
        #expect(json["ok"] as? Bool == true)
        let steps = try steps(json)
        #expect(steps.map(\.step) == Self.steps)
        #expect(steps.allSatisfy { $0.status == "passed" }, "\(steps)")
        #expect(json["subject"] as? String == "alice")
        #expect(json["agent"] as? String == "headless" && json["test_agent_allowed"] as? Bool == true)
        let stateFile = try #require(json["state_file"] as? String)
        #expect(stateFile.hasPrefix(folder.path + "/eua-demo-"), "a new folder in TMPDIR")
        let mode = try FileManager.default.attributesOfItem(atPath: stateFile)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(!result.stdout.contains("access_token"), "no token on screen")
    }

    @Test("plain words: each step as it happens, then what to do next")
    func plainWords() async throws {
        let folder = try TemporaryFolder()
        let result = try await demo([], folder: folder)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        for words in [
            "test agent", "discovered http://127.0.0.1:", "receiver 'loopback' listening on http://127.0.0.1:",
            "agent 'headless'", "presented the authorization URL", "redirect received", "state ok, iss ok",
            "tokens exchanged", "ID token signature ok (RS256", "subject alice", "mode 0600",
            "signed out: refresh token and access token revoked", "Signed in as alice, then signed out.",
            "eua login --issuer",
        ] {
            #expect(result.stdout.contains(words), "missing '\(words)' in:\n\(result.stdout)")
        }
        let numbered = result.stdout.split(separator: "\n").filter { $0.first?.isNumber == true }
        #expect(numbered.count == Self.steps.count, "one line per step, in order:\n\(result.stdout)")
    }

    @Test("--login-form: the headless agent fills in the server's login form; ES256 and another subject")
    func loginForm() async throws {
        let folder = try TemporaryFolder()
        let result = try await demo(
            ["--login-form", "--subject", "bob", "--signing-algorithm", "ES256", "--json"],
            folder: folder)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let json = try LoginCommandTests.lastJSON(result.stdout)
        #expect(json["subject"] as? String == "bob")
        let steps = try steps(json)
        #expect(steps.allSatisfy { $0.status == "passed" }, "\(steps)")
        #expect(steps.first { $0.step == "agent" }?.detail.contains("login form as bob") == true)
        #expect(steps.first { $0.step == "id_token" }?.detail.contains("ES256") == true)
    }

    @Test("--misbehave: the failing step is named, the ones after it did not run, exit 1")
    func misbehaving() async throws {
        let folder = try TemporaryFolder()
        let result = try await demo(["--misbehave", "tamperedSignature", "--json"], folder: folder)
        #expect(result.status == 1)
        let json = try LoginCommandTests.lastJSON(result.stdout)
        #expect(json["ok"] as? Bool == false)
        let steps = try steps(json)
        #expect(
            steps.map(\.status) == [
                "passed", "passed", "passed", "passed", "passed", "passed", "failed", "not_run", "not_run",
            ])
        #expect(steps[6].detail.contains("signature does not verify") && steps[6].detail.contains("idTokenInvalid"))
        #expect(result.stderr.contains("Error: "))
    }

    @Test("an unknown agent fails before any step, with what to do")
    func unknownAgent() async throws {
        let folder = try TemporaryFolder()
        let plain = try await demo(["--agent", "no-such-agent"], folder: folder)
        #expect(plain.status == 1)
        #expect(plain.stderr.contains("no agent has the id 'no-such-agent'"))
        #expect(!plain.stdout.split(separator: "\n").contains { $0.first?.isNumber == true }, "no step was taken")
        let json = try await demo(["--agent", "no-such-agent", "--json"], folder: folder)
        #expect(json.status == 1)
        let object = try LoginCommandTests.lastJSON(json.stdout)
        #expect(object["ok"] as? Bool == false)
        #expect((object["error"] as? String)?.contains("'eua agents' lists") == true)
        #expect(try steps(object).allSatisfy { $0.status == "not_run" })
    }

    @Test("a TMPDIR where no folder can be made: exit 1, the error names it, no step runs, nothing is saved")
    func unusableTemporaryFolder() async throws {
        let folder = try TemporaryFolder()
        let missing = folder.path + "/no/such/folder"
        let plain = try await demo([], folder: folder, temporaryFolder: missing)
        #expect(plain.status == 1)
        #expect(
            plain.stderr.contains("Error: could not make a temporary folder in \(missing) for the demo's state file"),
            "stderr: \(plain.stderr)")
        #expect(plain.stderr.contains("set TMPDIR"))
        #expect(!plain.stdout.split(separator: "\n").contains { $0.first?.isNumber == true }, "no step was taken")
        let json = try await demo(["--json"], folder: folder, temporaryFolder: missing)
        #expect(json.status == 1)
        let object = try LoginCommandTests.lastJSON(json.stdout)
        #expect(object["ok"] as? Bool == false && object["state_file"] == nil)
        #expect((object["error"] as? String)?.contains("could not make a temporary folder") == true)
        #expect(try steps(object).allSatisfy { $0.status == "not_run" })
        #expect(!FileManager.default.fileExists(atPath: missing))
    }
}
