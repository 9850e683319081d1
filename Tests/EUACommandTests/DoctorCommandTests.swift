// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import Foundation
import Testing

/// `eua doctor`, the built binary, in an isolated configuration: its verdict, its exit status and its JSON keys.
@Suite("eua doctor", .onOwnThreads)
struct DoctorCommandTests {
    struct Sandbox {
        let folder: TemporaryFolder
        var environment: [String: String]

        init() throws {
            folder = try TemporaryFolder("eua-doctor")
            environment = [
                "HOME": folder.url.appendingPathComponent("home").path,
                "XDG_CONFIG_DIRS": folder.url.appendingPathComponent("xdg").path,
                "EUA_MANAGED_CONFIG": folder.url.appendingPathComponent("managed.toml").path,
                "EUA_AGENT": "", "EUA_AGENT_OPTIONS": "", "EUA_ALLOW_TEST_AGENTS": "1", "BROWSER": "",
                "XDG_CONFIG_HOME": "",
            ]
        }

        var managedFile: URL { folder.url.appendingPathComponent("managed.toml") }

        func doctor(_ arguments: [String]) throws -> ProcessResult {
            try ProcessRunner.run(
                try TestPaths.product("eua"), ["doctor"] + arguments, environment: environment, timeout: 60)
        }

        func json(_ arguments: [String] = []) throws -> (status: Int32, object: [String: Any]) {
            let result = try doctor(arguments + ["--json"])
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
                "stdout: \(result.stdout)\nstderr: \(result.stderr)")
            return (result.status, object)
        }
    }

    @Test("sign-in can work: exit 0, the way and the agent, and every contract key")
    func canSignIn() throws {
        let (status, report) = try Sandbox().json()
        #expect(status == 0)
        #expect(report["can_sign_in"] as? Bool == true)
        #expect((report["problems"] as? [String])?.isEmpty == true)
        #expect(report["way"] as? String == "browser")
        #expect(
            report["agent"] as? String != nil && report["agent"] as? String != "manual",
            "a browser-step agent (a test agent, as they are allowed): \(report["agent"] ?? "none")")
        for key in ["configuration", "capabilities", "plugin_errors", "issuer"] {
            #expect(report[key] != nil, "\(key)")
        }
        let capabilities = try #require(report["capabilities"] as? [String: Any])
        let platform = try #require(capabilities["platform"] as? [String: Any])
        #expect(platform["ipv4_loopback"] as? Bool == true, "127.0.0.1 can be bound here")
    }

    @Test("a managed file that denies every agent: exit 1, and the problem names the file and line")
    func managedDeniesEverything() throws {
        let sandbox = try Sandbox()
        try "deny = [\"*\"]\n".write(to: sandbox.managedFile, atomically: true, encoding: .utf8)
        let (status, report) = try sandbox.json()
        #expect(status == 1)
        #expect(report["can_sign_in"] as? Bool == false)
        let problems = try #require(report["problems"] as? [String])
        #expect(problems.contains { $0.contains("\(sandbox.managedFile.path):1") }, "\(problems)")
        let plain = try sandbox.doctor([])
        #expect(plain.status == 1)
        #expect(plain.stdout.hasPrefix("Sign-in cannot work here yet:"))
    }

    @Test("a provider that is not there: exit 1, the discovery problem names host and port")
    func providerDown() throws {
        let port = try OIDCProviderMock.freePort()
        let (status, report) = try Sandbox().json(["--issuer", "http://127.0.0.1:\(port)", "--timeout", "5"])
        #expect(status == 1)
        let problems = try #require(report["problems"] as? [String])
        #expect(problems.contains { $0.hasPrefix("discovery:") && $0.contains("127.0.0.1:\(port)") }, "\(problems)")
    }

    @Test("a real provider (oidc-provider-mock): metadata, key set and clocks are fine; the device step is decided")
    func providerFine() async throws {
        let mock = try await OIDCProviderMock.start()
        let (status, report) = try Sandbox().json(["--issuer", mock.issuer])
        #expect(status == 0)
        let findings = try #require(report["issuer"] as? [[String: Any]])
        try #require(findings.map { $0["check"] as? String } == ["discovery", "keys", "clock"])
        #expect(findings.allSatisfy { $0["ok"] as? Bool == true }, "\(findings)")
        #expect((findings[1]["detail"] as? String)?.contains("RS256") == true)
    }

    @Test("a broken configuration: exit 2 with file:line")
    func brokenConfiguration() throws {
        let sandbox = try Sandbox()
        try "preference = [\n".write(to: sandbox.managedFile, atomically: true, encoding: .utf8)
        let result = try sandbox.doctor([])
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(sandbox.managedFile.path):"), "\(result.stderr)")
    }
}
