// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentTesting
import Foundation
import Testing

/// `eua login` where no browser can run (no display, no handler, $BROWSER unset): the chain picks the
/// device grant when the server offers it, else the manual agent; its SSH hint, paste mode, the waiting
/// display on a terminal and in a pipe, and Ctrl-C. Every run is the built binary in an isolated environment.
@Suite("eua login with no browser", .onOwnThreads)
struct NoBrowserTests {
    /// No DISPLAY/WAYLAND_DISPLAY/BROWSER/SSH variables, empty XDG folders, no managed file.
    static func isolated(_ desktop: IsolatedDesktop, _ extra: [String: String] = [:]) -> [String: String] {
        desktop.environment([
            "EUA_MANAGED_CONFIG": desktop.folder.path + "/no-managed.toml",
            "EUA_CLIENT_SECRET": "", "LANG": "C.UTF-8",
        ]).merging(extra) { $1 }
    }

    static func arguments(_ server: LocalAuthorizationServer, _ folder: TemporaryFolder, _ extra: [String] = [])
        -> [String]
    {
        [
            "login", "--issuer", server.issuer, "--client-id", server.options.clientID, "--scope", "openid email",
            "--timeout", "60", "--state-file", folder.path + "/state.json",
        ] + extra
    }

    /// The authorization URL the manual agent printed.
    static func authorizationURL(in stderr: String, server: LocalAuthorizationServer) throws -> URL {
        let line = try #require(
            stderr.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                .first { $0.hasPrefix(server.issuer + "/authorize?") })
        return try #require(URL(string: line))
    }

    static func redirectPort(of url: URL) throws -> Int {
        let redirect = try #require(
            URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?
                .first { $0.name == "redirect_uri" }?.value)
        return try #require(URL(string: redirect)?.port)
    }

    @Test("a device-capable server: the device grant, with the code on stderr and plain progress lines in a pipe")
    func deviceChosen() async throws {
        try await LocalAuthorizationServer.withServer { server in
            server.deviceAuthorization.update {
                $0.enabled = true
                $0.interval = 1
                $0.answers = [.pending]
            }
            let desktop = try IsolatedDesktop(registerHandler: false)
            let folder = try TemporaryFolder()
            let eua = try TestPaths.product("eua")
            let result = try await offThePool {
                try ProcessRunner.run(
                    eua, Self.arguments(server, folder), environment: Self.isolated(desktop),
                    replacingEnvironment: true, timeout: 60)
            }
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdout.contains("Signed in as alice at \(server.issuer)."))
            #expect(result.stderr.contains("device authorization") && result.stderr.contains("enter the code"))
            #expect(result.stderr.contains(server.issuer + "/device"))
            #expect(result.stderr.contains("left until the timeout"), "a plain progress line")
            #expect(!result.stderr.contains("\u{1B}["), "no terminal control characters in a pipe")
            #expect(server.deviceAuthorization.answered == [.pending, .approve])
            #expect(server.authorizationRequests.isEmpty, "no browser flow was started")
        }
    }

    @Test("--flow device forces the device grant even when a (test) browser agent is available")
    func deviceForced() async throws {
        try await LocalAuthorizationServer.withServer { server in
            server.deviceAuthorization.update {
                $0.enabled = true
                $0.interval = 1
            }
            let desktop = try IsolatedDesktop(registerHandler: false)
            let folder = try TemporaryFolder()
            let eua = try TestPaths.product("eua")
            let environment = Self.isolated(desktop, ["EUA_ALLOW_TEST_AGENTS": "1"])
            let result = try await offThePool {
                try ProcessRunner.run(
                    eua, Self.arguments(server, folder, ["--flow", "device", "--json"]),
                    environment: environment, replacingEnvironment: true, timeout: 60)
            }
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(server.deviceAuthorization.requestCount == 1 && server.authorizationRequests.isEmpty)
        }
    }

    @Test(
        "no device grant, on SSH: the manual agent prints the URL and the ssh -L line with the real port; the redirect completes it"
    )
    func manualOverSSH() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let desktop = try IsolatedDesktop(registerHandler: false)
            let folder = try TemporaryFolder()
            let eua = try TestPaths.product("eua")
            let environment = Self.isolated(
                desktop, ["SSH_CONNECTION": "203.0.113.5 50022 198.51.100.7 22", "USER": "tester"])
            let process = try InteractiveProcess(
                eua, Self.arguments(server, folder), environment: environment,
                replacingEnvironment: true)
            let stderr = try await offThePool {
                try process.waitForStderr { $0.contains("/authorize?") && $0.contains("ssh -L") }
            }
            let url = try Self.authorizationURL(in: stderr, server: server)
            let port = try Self.redirectPort(of: url)
            #expect(stderr.contains("ssh -L \(port):127.0.0.1:\(port) tester@198.51.100.7"), "stderr: \(stderr)")
            // The browser on the laptop: the server redirects, and the redirect reaches the receiver (through the tunnel).
            let authorize = try await offThePool { try rawGet(url) }
            #expect(authorize.status == 302)
            let callback = try #require(authorize.location.flatMap(URL.init(string:)))
            #expect(callback.port == port)
            let delivered = try await offThePool { try rawGet(callback) }
            #expect(delivered.status == 200)
            let result = try await offThePool { try process.waitForExit() }
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdout.contains("Signed in as alice at \(server.issuer)."))
        }
    }

    @Test("on SSH with an IPv6 loopback redirect URI, the ssh -L line forwards to [::1], where the receiver listens")
    func manualOverSSHIPv6() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let desktop = try IsolatedDesktop(registerHandler: false)
            let folder = try TemporaryFolder()
            let environment = Self.isolated(
                desktop, ["SSH_CONNECTION": "203.0.113.5 50022 198.51.100.7 22", "USER": "tester"])
            let process = try InteractiveProcess(
                try TestPaths.product("eua"),
                Self.arguments(server, folder, ["--redirect-uri", "http://[::1]/cb"]),
                environment: environment, replacingEnvironment: true)
            let stderr = try await offThePool {
                try process.waitForStderr { $0.contains("/authorize?") && $0.contains("ssh -L") }
            }
            process.signal(SIGINT)
            #expect(try await offThePool { try process.waitForExit() }.status == 130)
            let url = try Self.authorizationURL(in: stderr, server: server)
            let redirect = try #require(
                URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?
                    .first { $0.name == "redirect_uri" }?.value.flatMap(URL.init(string:)))
            let port = try #require(redirect.port)
            #expect(redirect.host == "::1" || redirect.host == "[::1]", "\(redirect)")
            #expect(stderr.contains("ssh -L \(port):[::1]:\(port) tester@198.51.100.7"), "stderr: \(stderr)")
        }
    }

    @Test("paste mode: a pasted URL with a wrong state is refused, the prompt comes back, the right one completes")
    func pasteWrongThenRight() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let desktop = try IsolatedDesktop(registerHandler: false)
            let folder = try TemporaryFolder()
            let eua = try TestPaths.product("eua")
            let process = try InteractiveProcess(
                eua, Self.arguments(server, folder, ["--agent", "manual", "--json"]),
                environment: Self.isolated(desktop), replacingEnvironment: true)
            let stderr = try await offThePool { try process.waitForStderr { $0.contains("paste it here") } }
            #expect(stderr.contains("Use any browser on this machine"))
            #expect(!stderr.contains("ssh -L"), "not on SSH: no tunnel line")
            let url = try Self.authorizationURL(in: stderr, server: server)
            let authorize = try await offThePool { try rawGet(url) }
            let final = try #require(authorize.location)
            var forged = try #require(URLComponents(string: final))
            forged.queryItems = forged.queryItems?.map {
                $0.name == "state" ? URLQueryItem(name: "state", value: "forged") : $0
            }
            process.send(line: try #require(forged.string))
            let refused = try await offThePool {
                try process.waitForStderr { $0.contains("Not accepted") && $0.contains("Paste the address again") }
            }
            #expect(refused.contains("state does not match"))
            process.send(line: final)
            let result = try await offThePool { try process.waitForExit() }
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdout.split(separator: "\n").last?.contains("\"subject\":\"alice\"") == true)
            #expect(server.tokenRequests.count == 1, "the forged paste never reached the token endpoint")
        }
    }

    @Test("Ctrl-C while waiting: exit 130, a clear line, and the receiver's port is closed")
    func interrupt() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let desktop = try IsolatedDesktop(registerHandler: false)
            let folder = try TemporaryFolder()
            let eua = try TestPaths.product("eua")
            let process = try InteractiveProcess(
                eua, Self.arguments(server, folder), environment: Self.isolated(desktop),
                replacingEnvironment: true)
            let stderr = try await offThePool { try process.waitForStderr { $0.contains("/authorize?") } }
            let port = try Self.redirectPort(of: try Self.authorizationURL(in: stderr, server: server))
            #expect(!RawConnection.isRefused(port: port), "the receiver listens while waiting")
            process.signal(SIGINT)
            let result = try await offThePool { try process.waitForExit(timeout: 20) }
            #expect(result.status == 130, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("interrupted"))
            #expect(RawConnection.isRefused(port: port), "the receiver was closed")
            #expect(!FileManager.default.fileExists(atPath: folder.path + "/state.json"))
        }
    }

    @Test("on a terminal: a spinner and a countdown; in a pipe: neither")
    func spinnerOnTTYOnly() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let desktop = try IsolatedDesktop(registerHandler: false)
            let folder = try TemporaryFolder()
            let eua = try TestPaths.product("eua")
            let script = try #require(
                ProcessRunner.which("script"), "script (util-linux) is needed for the pseudo-terminal")
            let arguments =
                [eua.path]
                + Self.arguments(
                    server, folder,
                    [
                        "--agent", "headless", "--agent-option", "mode=follow", "--agent-option", "delay-ms=1500",
                    ])
            let command = arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(
                separator: " ")
            let environment = Self.isolated(desktop, ["EUA_ALLOW_TEST_AGENTS": "1", "TERM": "xterm"])
            let onTTY = try await offThePool {
                try ProcessRunner.run(
                    script, ["-qfec", command, "/dev/null"], environment: environment,
                    replacingEnvironment: true, timeout: 60)
            }
            #expect(onTTY.status == 0, "output: \(onTTY.stdout) \(onTTY.stderr)")
            #expect(
                onTTY.stdout.contains("⠋ Waiting for the test agent 'headless' to finish the sign-in"),
                "output: \(onTTY.stdout)")
            #expect(onTTY.stdout.contains("left (Ctrl-C to cancel)"))
            #expect(onTTY.stdout.contains("\r\u{1B}[2K"), "redrawn in place")
            #expect(onTTY.stdout.contains("Signed in as alice at \(server.issuer)."))

            let inPipe = try await offThePool {
                try ProcessRunner.run(
                    eua, Array(arguments.dropFirst()), environment: environment, replacingEnvironment: true,
                    timeout: 60)
            }
            #expect(inPipe.status == 0, "stderr: \(inPipe.stderr)")
            #expect(!inPipe.stderr.contains("Ctrl-C to cancel") && !inPipe.stderr.contains("\u{1B}["))
            #expect(inPipe.stderr.contains("eua login: Waiting for the test agent 'headless' to finish the sign-in;"))
        }
    }

    @Test("eua explain --issuer shows the chain and why each step was skipped")
    func explainChain() async throws {
        try await LocalAuthorizationServer.withServer { withDevice in
            try await LocalAuthorizationServer.withServer { without in
                withDevice.deviceAuthorization.update { $0.enabled = true }
                let desktop = try IsolatedDesktop(registerHandler: false)
                let eua = try TestPaths.product("eua")
                struct Report: Decodable {
                    struct Step: Decodable {
                        var step, status, reason: String
                        var agent: String?
                    }
                    var chosen: String?
                    var flow: String?
                    var chain: [Step]
                    var candidates: [[String: AnyDecodable]]
                }
                struct AnyDecodable: Decodable { init(from decoder: any Decoder) throws {} }
                func explain(_ issuer: String?) async throws -> Report {
                    let arguments = ["explain", "--json"] + (issuer.map { ["--issuer", $0] } ?? [])
                    let result = try await offThePool {
                        try ProcessRunner.run(
                            eua, arguments, environment: Self.isolated(desktop), replacingEnvironment: true)
                    }
                    #expect(result.status == 0, "stderr: \(result.stderr)")
                    return try JSONDecoder().decode(Report.self, from: Data(result.stdout.utf8))
                }
                let device = try await explain(withDevice.issuer)
                #expect(device.flow == "device")
                #expect(device.chain.map(\.step) == ["browser", "device", "manual"])
                #expect(
                    device.chain[0].status == "skipped"
                        && device.chain[0].reason.contains("no browser agent is available"))
                #expect(device.chain[1].status == "chosen" && device.chain[2].status == "notReached")
                #expect(device.chosen == "manual", "the existing key still names the agent selection chooses")
                let manual = try await explain(without.issuer)
                #expect(manual.flow == "manual" && manual.chain[2].agent == "manual")
                #expect(
                    manual.chain[1].status == "skipped"
                        && manual.chain[1].reason.contains("device_authorization_endpoint"))
                let unknown = try await explain(nil)
                #expect(unknown.flow == nil && unknown.chain[1].status == "unknown")
            }
        }
    }
}
