// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentTesting
import Foundation
import Testing

/// The system-browser plugin through real GIO, in an isolated XDG environment each test builds,
/// driven through the built `eua` binary.
@Suite("System browser via GIO", .onOwnThreads, .timeLimit(.minutes(1)))
struct SystemBrowserTests {
    func open(_ url: String, _ desktop: IsolatedDesktop, _ extra: [String: String] = [:]) throws -> (
        ProcessResult, Duration
    ) {
        let clock = ContinuousClock()
        var result: ProcessResult?
        let elapsed = try clock.measure {
            result = try ProcessRunner.run(
                try TestPaths.product("eua"), ["open", url, "--agent", "system-browser"],
                environment: desktop.environment(extra), replacingEnvironment: true)
        }
        return (result!, elapsed)
    }

    @Test(
        "the fake browser gets the exact URL; eua returns long before it exits; no noise on stdout",
        arguments: [
            "https://as.example/authorize?response_type=code&client_id=app&redirect_uri=http%3A%2F%2F127.0.0.1%3A8400%2Fcb&state=a%20b",
            "https://as.example/path%20with%20spaces?x=%26&y=1#fragment",
            "https://as.example/caf%C3%A9?name=%E6%97%A5%E6%9C%AC",
            "http://127.0.0.1:8080/?a=1&a=2",
        ])
    func exactURL(_ url: String) throws {
        let desktop = try IsolatedDesktop(lingerSeconds: 5)
        let (result, elapsed) = try open(url, desktop)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(elapsed < .seconds(3), "returned after \(elapsed), the browser lingers 5 s")
        #expect(result.stdout.isEmpty, "stdout stays clean: \(result.stdout)")
        #expect(!result.stderr.contains("noise"), "the browser's stderr is not ours")
        #expect(!result.stderr.contains("GLib"), "no GLib warnings: \(result.stderr)")
        #expect(desktop.recordedArguments() == [url])
        #expect(!desktop.browserHasExited)
    }

    @Test("raw non-ASCII is sent as its UTF-8 percent-encoding (RFC 3987), everything else unchanged")
    func nonASCII() throws {
        let desktop = try IsolatedDesktop(lingerSeconds: 1)
        let (result, _) = try open("https://as.example/café?q=日本&r=a%20b", desktop)
        #expect(result.status == 0)
        #expect(desktop.recordedArguments() == ["https://as.example/caf%C3%A9?q=%E6%97%A5%E6%9C%AC&r=a%20b"])
    }

    @Test("no handler and no $BROWSER: a clear error that says what to set")
    func noHandler() throws {
        let desktop = try IsolatedDesktop(registerHandler: false)
        let (result, _) = try open("https://as.example/", desktop)
        #expect(result.status == 1)
        #expect(result.stderr.contains("xdg-settings set default-web-browser"))
        #expect(result.stderr.contains("$BROWSER"))
        #expect(result.stderr.contains("g-io-error-quark"), "GIO's domain and code are given: \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("$BROWSER is the fallback: entries tried in order, %s replaced, no shell")
    func browserVariable() throws {
        let desktop = try IsolatedDesktop(registerHandler: false, lingerSeconds: 4)
        let url = "https://as.example/authorize?a=1&b=two%20words"
        let (result, elapsed) = try open(
            url, desktop, ["BROWSER": "no-such-browser-here:\(desktop.browser.path) --new-tab %s"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(elapsed < .seconds(3))
        #expect(result.stdout.isEmpty)
        #expect(desktop.recordedArguments() == ["--new-tab", url])
    }

    @Test("the browser is the host's own child (one fork), reaped while the host still runs: no zombie")
    func browserReaped() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let desktop = try IsolatedDesktop()
            // This browser says who it is and who started it, and ends at once (gio-launch-desktop execs it: same pid).
            let said = desktop.folder.url.appendingPathComponent("browser-pids")
            try """
            #!/bin/sh
            echo "$$ $PPID" > '\(said.path).tmp' && mv '\(said.path).tmp' '\(said.path)'
            """.write(to: desktop.browser, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: desktop.browser.path)
            // A long-lived host: a sign-in that waits for a redirect the browser never sends.
            let login = try ChildProcess(
                try TestPaths.product("eua"),
                [
                    "login", "--issuer", server.issuer, "--client-id", server.options.clientID, "--agent",
                    "system-browser",
                    "--timeout", "120", "--state-file", desktop.folder.path + "/state.json",
                ],
                environment: desktop.environment(["DISPLAY": ":93", "EUA_CLIENT_SECRET": ""]),
                replacingEnvironment: true)
            defer { login.terminate() }
            let started = ContinuousClock.now + .seconds(30)
            var pids: [pid_t] = []
            while pids.count != 2, ContinuousClock.now < started {
                pids = ((try? String(contentsOf: said, encoding: .utf8)) ?? "").split(separator: " ")
                    .compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
                try await Task.sleep(for: .milliseconds(20))
            }
            try #require(
                pids.count == 2, "the browser never ran; eua: \(String(decoding: login.stderr, as: UTF8.self))")
            #expect(pids[1] == login.pid, "the browser's parent is eua itself, not an intermediate child")
            // Collected by eua while eua still runs: gone from /proc, not left a zombie ('Z') of eua's. (A pid reused
            // since is some other process's child.)
            let stillEUAs = { () -> String? in
                guard let stat = try? String(contentsOfFile: "/proc/\(pids[0])/stat", encoding: .utf8),
                    let end = stat.range(of: ") ", options: .backwards)
                else { return nil }
                let fields = stat[end.upperBound...].split(separator: " ")
                return fields.count > 1 && pid_t(fields[1]) == login.pid ? stat : nil
            }
            let reaped = ContinuousClock.now + .seconds(20)
            while stillEUAs() != nil, ContinuousClock.now < reaped {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(stillEUAs() == nil, "the browser is still eua's child (state after the pid): \(stillEUAs() ?? "")")
            #expect(login.isRunning, "eua ended before the check: \(String(decoding: login.stderr, as: UTF8.self))")
        }
    }

    @Test("with a display set and no session bus, GLib stays quiet on stderr")
    func displayWithoutBus() throws {
        let desktop = try IsolatedDesktop(lingerSeconds: 1)
        let (result, _) = try open("https://as.example/x", desktop, ["DISPLAY": ":93"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "stderr: \(result.stderr)")
        #expect(desktop.recordedArguments() == ["https://as.example/x"])
    }
}

/// `eua capabilities` in each environment a test can build.
@Suite("Capability report", .onOwnThreads, .timeLimit(.minutes(1)))
struct CapabilityReportTests {
    struct Report: Decodable {
        struct Platform: Decodable {
            var display: String
            var ssh: Bool
            var sandbox: String?
            var portal: Bool
            var wsl: Bool
            var ipv4_loopback: Bool?
            var default_browser: [String: String]?
            var installed_browsers: [[String: String]]
        }
        struct Agent: Decodable {
            var id, kind: String
            var available: Bool
            var reasons: [String]
        }
        var platform: Platform
        var agents: [Agent]
    }

    func report(_ desktop: IsolatedDesktop, _ extra: [String: String] = [:]) throws -> Report {
        let result = try ProcessRunner.run(
            try TestPaths.product("eua"), ["capabilities", "--json"],
            environment: desktop.environment(extra), replacingEnvironment: true)
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONDecoder().decode(Report.self, from: Data(result.stdout.utf8))
    }

    func systemBrowser(_ report: Report) throws -> Report.Agent {
        try #require(report.agents.first { $0.id == "system-browser" })
    }

    @Test("no display: the default browser is found, but the agent is unavailable with the reason")
    func noDisplay() throws {
        let report = try report(try IsolatedDesktop())
        #expect(report.platform.display == "none")
        #expect(report.platform.default_browser == ["id": "fake-browser.desktop", "name": "Fake Browser"])
        #expect(report.platform.installed_browsers.map { $0["id"] } == ["fake-browser.desktop"])
        #expect(report.platform.ipv4_loopback == true)
        let agent = try systemBrowser(report)
        #expect(!agent.available)
        #expect(agent.reasons.contains { $0.contains("no display") })
        for unavailable in report.agents where !unavailable.available {
            #expect(!unavailable.reasons.isEmpty, "\(unavailable.id) says why")
        }
    }

    @Test("X11 and Wayland displays make the system browser available")
    func displays() throws {
        for (variables, expected) in [
            (["DISPLAY": ":0"], "x11"), (["WAYLAND_DISPLAY": "wayland-0"], "wayland"),
            (["DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"], "wayland+x11"),
        ] {
            let report = try report(try IsolatedDesktop(), variables)
            #expect(report.platform.display == expected)
            #expect(try systemBrowser(report).available)
        }
    }

    @Test("an SSH session is reported")
    func ssh() throws {
        let report = try report(try IsolatedDesktop(), ["SSH_CONNECTION": "10.0.0.2 50000 10.0.0.1 22"])
        #expect(report.platform.ssh)
        #expect(!(try systemBrowser(report).available))
    }

    @Test("inside Flatpak, links go through the portal and the agent is available without a display")
    func flatpak() throws {
        let desktop = try IsolatedDesktop(registerHandler: false)
        let info = desktop.folder.url.appendingPathComponent("flatpak-info")
        try "[Application]\nname=org.example.App\n".write(to: info, atomically: true, encoding: .utf8)
        let report = try report(desktop, ["EUA_FLATPAK_INFO": info.path])
        #expect(report.platform.sandbox == "flatpak")
        #expect(report.platform.portal)
        #expect(try systemBrowser(report).available)
    }

    @Test("Snap is detected from $SNAP")
    func snap() throws {
        let report = try report(try IsolatedDesktop(), ["SNAP": "/snap/example/1"])
        #expect(report.platform.sandbox == "snap")
    }

    @Test("nothing registered and no $BROWSER: unavailable, with what to set")
    func nothing() throws {
        let report = try report(try IsolatedDesktop(registerHandler: false), ["DISPLAY": ":0"])
        let agent = try systemBrowser(report)
        #expect(!agent.available)
        #expect(agent.reasons.contains { $0.contains("xdg-settings") })
        #expect(report.platform.default_browser == nil)
    }

    @Test("the table form is readable at a glance")
    func table() throws {
        let desktop = try IsolatedDesktop()
        let result = try ProcessRunner.run(
            try TestPaths.product("eua"), ["capabilities"],
            environment: desktop.environment(), replacingEnvironment: true)
        #expect(result.stdout.contains("default browser  Fake Browser (fake-browser.desktop)"))
        #expect(result.stdout.contains("system-browser"))
        #expect(result.stdout.contains("no display"))
    }
}
