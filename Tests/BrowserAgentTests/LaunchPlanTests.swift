// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import BrowserAgentSupport
import ExternalUserAgentPluginKit
import EUATestSupport
import Testing

/// Options → command line, for every browser of both families (no browser is started here).
@Suite("Browser options and command lines", .onOwnThreads)
struct LaunchPlanTests {
    static let url = "https://as.example/authorize?a=1&b=2"

    func plan(_ family: BrowserFamily, _ options: [String: String], root: String? = nil, isRoot: Bool = false) throws
        -> LaunchPlan
    {
        let parsed = try BrowserOptions(options: options)
        return LaunchPlan.make(
            family: family, executable: "/usr/bin/\(family.executables[0])", options: parsed,
            url: Self.url, ephemeralRoot: parsed.ownsInstance ? (root ?? "/tmp/e") : nil, isRoot: isRoot)
    }

    @Test(
        "Chromium family: each option maps to its flag, the URL is the last argument", arguments: BrowserFamily.chromium
    )
    func chromium(_ family: BrowserFamily) throws {
        let exe = "/usr/bin/\(family.executables[0])"
        #expect(try plan(family, [:]).arguments == [exe, Self.url])
        #expect(try plan(family, ["private": "true"]).arguments == [exe, "--incognito", Self.url])
        #expect(try plan(family, ["profile": "Work"]).arguments == [exe, "--profile-directory=Work", Self.url])
        #expect(
            try plan(family, ["profile": "/home/a/.config/x"]).arguments == [
                exe, "--user-data-dir=/home/a/.config/x", Self.url,
            ])
        #expect(try plan(family, ["new-window": "true"]).arguments == [exe, "--new-window", Self.url])
        #expect(try plan(family, ["extra-args": "--lang=fr --x"]).arguments == [exe, "--lang=fr", "--x", Self.url])
        let ephemeral = try plan(family, ["ephemeral": "true"])
        #expect(
            ephemeral.arguments == [
                exe, "--user-data-dir=/tmp/e/profile", "--no-first-run", "--no-default-browser-check", Self.url,
            ])
        #expect(ephemeral.owned)
        #expect(ephemeral.environment == ["HOME": "/tmp/e/home", "TMPDIR": "/tmp/e/tmp"])
        let headless = try plan(family, ["headless": "true", "ephemeral": "true"], isRoot: true)
        #expect(
            headless.arguments == [
                exe, "--headless", "--no-sandbox", "--user-data-dir=/tmp/e/profile", "--no-first-run",
                "--no-default-browser-check", Self.url,
            ])
        #expect(
            !(try plan(family, ["headless": "true"], isRoot: false)).arguments.contains("--no-sandbox"),
            "--no-sandbox only as root")
        #expect(!(try plan(family, [:])).owned, "a hand-off is not owned")
    }

    @Test("Firefox family: each option maps to its flag", arguments: BrowserFamily.firefox)
    func firefox(_ family: BrowserFamily) throws {
        let exe = "/usr/bin/\(family.executables[0])"
        #expect(try plan(family, [:]).arguments == [exe, Self.url])
        #expect(try plan(family, ["private": "true"]).arguments == [exe, "--private-window", Self.url])
        #expect(try plan(family, ["profile": "work"]).arguments == [exe, "-P", "work", Self.url])
        #expect(
            try plan(family, ["profile": "/p/dir"]).arguments == [exe, "--no-remote", "--profile", "/p/dir", Self.url])
        #expect(try plan(family, ["new-window": "true"]).arguments == [exe, "--new-window", Self.url])
        let headless = try plan(family, ["headless": "true", "ephemeral": "true"])
        #expect(headless.arguments == [exe, "--headless", "--no-remote", "--profile", "/tmp/e/profile", Self.url])
        #expect(headless.owned)
    }

    @Test(
        "combinations that cannot work are refused with the reason",
        arguments: [
            (["ephemeral": "true", "profile": "work"], "cannot work together"),
            (["headless": "true", "new-window": "true"], "no windows"),
            (["headless": "true", "private": "true"], "ephemeral=true"),
            (["private": "maybe"], "true or false"),
            (["executable": "firefox"], "absolute path"),
            (["colour": "red"], "unknown"),
        ])
    func refused(_ options: [String: String], _ expected: String) {
        #expect { try BrowserOptions(options: options) } throws: { error in
            (error as? PluginError).map { $0.code == .invalidOptions && $0.message.contains(expected) } ?? false
        }
    }

    @Test(
        "versions are read from --version output, from stdout only",
        arguments: [
            ("Chromium 156.0.8078.79 built on Debian GNU/Linux 12 (bookworm)\n", "156.0.8078.79"),
            ("Mozilla Firefox 153.7.0esr\n", nil),
            ("Google Chrome 131.0.6778.85 \n", "131.0.6778.85"),
            ("Brave Browser 1.73.97 Chromium: 131.0.6778.85\n", "1.73.97"),
            ("no version here\n", nil),
        ] as [(String, String?)])
    func versions(_ output: String, _ expected: String?) {
        #expect(BrowserDiscovery.parseVersion(output) == expected)
    }
}
