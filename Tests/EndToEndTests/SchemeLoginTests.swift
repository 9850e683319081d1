// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentTesting
import Foundation
import Testing

/// `eua login --redirect-uri com.example.app:/cb`: the sign-in comes back on a private-use URI scheme (RFC 8252
/// §7.1), in an isolated desktop (its own XDG folders, no session bus) where `eua scheme register` made eua the
/// scheme's handler, and the headless agent hands the redirect to the desktop with real `gio open`.
@Suite("eua login with a private-use scheme redirect URI", .onOwnThreads, .timeLimit(.minutes(2)))
struct SchemeLoginTests {
    static let redirect = "com.example.app:/cb"

    /// An isolated desktop with a 0700 runtime folder, and the scheme registered to the built eua.
    final class Desktop: @unchecked Sendable {
        let desktop: IsolatedDesktop
        let runtime: URL

        init() throws {
            desktop = try IsolatedDesktop(registerHandler: false)
            runtime = try desktop.folder.folder("runtime")
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: runtime.path)
        }

        var environment: [String: String] {
            desktop.environment([
                "XDG_RUNTIME_DIR": runtime.path, "DBUS_SESSION_BUS_ADDRESS": "disabled:",
                "XDG_CURRENT_DESKTOP": "", "DISPLAY": "", "WAYLAND_DISPLAY": "", "BROWSER": "",
                "EUA_ALLOW_TEST_AGENTS": "1", "EUA_CLIENT_SECRET": "",
            ])
        }

        func eua(_ arguments: [String]) async throws -> ProcessResult {
            let (executable, environment) = (try TestPaths.product("eua"), self.environment)
            return try await offThePool {
                try ProcessRunner.run(
                    executable, arguments, environment: environment, replacingEnvironment: true, timeout: 60)
            }
        }
    }

    @Test(
        "register, then login: the server's redirect reaches the waiting flow through gio open; the token request carries that exact redirect_uri"
    )
    func loginThroughGioOpen() async throws {
        try #require(ProcessRunner.which("gio") != nil, "gio is installed by scripts/bootstrap (libglib2.0-bin)")
        try await LocalAuthorizationServer.withServer(.init(clientID: "native-app")) { server in
            let desktop = try Desktop()
            let registered = try await desktop.eua(["scheme", "register", "com.example.app"])
            try #require(registered.status == 0, "\(registered.stderr)")
            let stateFile = desktop.desktop.folder.path + "/state.json"
            let result = try await desktop.eua([
                "login", "--issuer", server.issuer, "--client-id", "native-app", "--redirect-uri", Self.redirect,
                "--agent", "headless", "--agent-option", "mode=follow", "--agent-option", "deliver=desktop",
                "--timeout", "30", "--state-file", stateFile, "--json",
            ])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(try LoginCommandTests.lastJSON(result.stdout)["subject"] as? String == "alice")
            #expect(server.authorizationRequests.first?["redirect_uri"] == Self.redirect)
            let exchange = try #require(server.tokenRequests.first)
            #expect(exchange.grantType == "authorization_code" && exchange.refusal == nil)
            #expect(exchange.redirectURI == Self.redirect, "the same redirect_uri, byte for byte")
            #expect(FileManager.default.fileExists(atPath: stateFile))
            #expect(
                !FileManager.default.fileExists(atPath: desktop.runtime.path + "/eua/scheme-com.example.app.sock"),
                "the hand-off socket is removed when the flow ends")
        }
    }

    @Test("sign-out back on the scheme: the post-logout redirect reaches the waiting eua logout through gio open")
    func logoutThroughGioOpen() async throws {
        try #require(ProcessRunner.which("gio") != nil, "gio is installed by scripts/bootstrap (libglib2.0-bin)")
        try await LocalAuthorizationServer.withServer(.init(clientID: "native-app")) { server in
            let desktop = try Desktop()
            _ = try await desktop.eua(["scheme", "register", "com.example.app"])
            let stateFile = desktop.desktop.folder.path + "/state.json"
            let follow = ["--agent", "headless", "--agent-option", "mode=follow", "--agent-option", "deliver=desktop"]
            let login = try await desktop.eua(
                [
                    "login", "--issuer", server.issuer, "--client-id", "native-app", "--redirect-uri",
                    Self.redirect, "--timeout", "30", "--state-file", stateFile,
                ] + follow)
            try #require(login.status == 0, "stderr: \(login.stderr)")
            let result = try await desktop.eua(
                [
                    "logout", "--state-file", stateFile, "--post-logout-redirect-uri",
                    "com.example.app:/signed-out", "--timeout", "30",
                ] + follow)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdout.contains("Ended the session at \(server.issuer); the browser came back to this app."))
            let endSession = try #require(server.endSessions.first)
            #expect(endSession.parameters["post_logout_redirect_uri"] == "com.example.app:/signed-out")
            #expect(endSession.redirectedTo?.hasPrefix("com.example.app:/signed-out?state=") == true)
            #expect(server.revocations.count == 2 && !FileManager.default.fileExists(atPath: stateFile))
        }
    }

    @Test("a wrong state from the server is turned away at the hand-off; the login waits on and times out")
    func wrongState() async throws {
        try #require(ProcessRunner.which("gio") != nil, "gio is installed by scripts/bootstrap (libglib2.0-bin)")
        try await LocalAuthorizationServer.withServer(.init(clientID: "native-app", misbehaviors: [.wrongState])) {
            server in
            let desktop = try Desktop()
            _ = try await desktop.eua(["scheme", "register", "com.example.app"])
            let result = try await desktop.eua([
                "login", "--issuer", server.issuer, "--client-id", "native-app", "--redirect-uri", Self.redirect,
                "--agent", "headless", "--agent-option", "mode=follow", "--agent-option", "deliver=desktop",
                "--timeout", "3", "--state-file", desktop.desktop.folder.path + "/state.json",
            ])
            #expect(result.status == 1)
            #expect(
                result.stderr.contains("refused the redirect: the redirect's state does not belong to this sign-in"),
                "the handler gio ran says why: \(result.stderr)")
            #expect(
                result.stderr.contains("no callback reached com.example.app:/cb within")
                    && result.stderr.contains("(1 request was turned away") && result.stderr.contains("[timedOut]"),
                "\(result.stderr)")
            #expect(server.tokenRequests.isEmpty, "no code was exchanged")
        }
    }

    @Test(
        "hostile or contradictory private-use redirect URIs are usage errors",
        arguments: [
            ("com.example.app://cb", "a private-use redirect URI is <scheme>:/<path>"),
            ("com.example.app:/cb?x=1", "no query"),
            ("myapp:/cb", "not a reverse domain name"),
            ("COM.EXAMPLE.APP:/cb", "must be written in lower case"),
        ])
    func usageErrors(uri: String, message: String) async throws {
        let desktop = try Desktop()
        let result = try await desktop.eua([
            "login", "--issuer", "http://127.0.0.1:1", "--client-id", "c",
            "--redirect-uri", uri,
        ])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        let withPort = try await desktop.eua([
            "login", "--issuer", "http://127.0.0.1:1", "--client-id", "c",
            "--redirect-uri", Self.redirect, "--port", "8400",
        ])
        #expect(withPort.status == 64 && withPort.stderr.contains("give no --port or --port-range with it"))
    }
}
