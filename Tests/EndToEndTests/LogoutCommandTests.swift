// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentTesting
import Foundation
import Testing

/// `eua logout`, the built binary, against the testing kit's local authorization server: what the server
/// recorded (revocations, end-session requests), the exit status, the lines, and whether the state is gone.
@Suite("eua logout, end to end", .onOwnThreads)
struct LogoutCommandTests {
    static let environment = ["EUA_ALLOW_TEST_AGENTS": "1", "EUA_CLIENT_SECRET": ""]
    static let follow = ["--agent", "headless", "--agent-option", "mode=follow"]
    /// A post-logout redirect URI the local server accepts (a loopback one, any port): without one, none is sent.
    static let back = ["--post-logout-redirect-uri", "http://127.0.0.1/logout"]

    func eua(_ arguments: [String], environment: [String: String] = LogoutCommandTests.environment) async throws
        -> ProcessResult
    {
        let executable = try TestPaths.product("eua")
        return try await offThePool {
            try ProcessRunner.run(executable, arguments, environment: environment, timeout: 90)
        }
    }

    /// Signs in as alice with the headless agent; returns the saved tokens.
    func signIn(_ server: LocalAuthorizationServer, stateFile: String, secret: String? = nil) async throws -> (
        access: String, refresh: String
    ) {
        var arguments =
            [
                "login", "--issuer", server.issuer, "--client-id", server.options.clientID, "--json",
                "--timeout", "30", "--state-file", stateFile,
            ] + Self.follow
        if let secret { arguments += ["--client-secret", secret] }
        let result = try await eua(arguments)
        try #require(result.status == 0, "stderr: \(result.stderr)")
        let json = try LoginCommandTests.lastJSON(result.stdout)
        let access = try #require(json["access_token"] as? String)
        let refresh = try #require(json["refresh_token"] as? String)
        #expect(server.isLiveAccessToken(access) && server.isLiveRefreshToken(refresh))
        return (access, refresh)
    }

    @Test(
        "logout revokes the refresh token then the access token, ends the session through the agent, forgets the state")
    func fullSignOut() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            let tokens = try await signIn(server, stateFile: stateFile)

            let result = try await eua(
                ["logout", "--state-file", stateFile, "--timeout", "30"] + Self.back + Self.follow)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(
                result.stdout == """
                    Revoked the refresh token at \(server.issuer).
                    Revoked the access token at \(server.issuer).
                    Ended the session at \(server.issuer); the browser came back to this app.
                    Forgot the saved state \(stateFile).
                    Signed out of \(server.issuer).

                    """)
            #expect(!FileManager.default.fileExists(atPath: stateFile))
            // What the server recorded: two revocations, in order, each with its hint and the public client's id.
            let revocations = server.revocations
            #expect(revocations.map(\.tokenTypeHint) == ["refresh_token", "access_token"])
            #expect(revocations.map(\.revoked) == ["refresh_token", "access_token"])
            #expect(
                revocations.allSatisfy { $0.clientAuthentication == "none" && $0.clientID == server.options.clientID })
            #expect(!server.isLiveRefreshToken(tokens.refresh) && !server.isLiveAccessToken(tokens.access))
            // One end-session request: client_id, a loopback post_logout_redirect_uri, a state; no ID token anywhere in it.
            let endSession = try #require(server.endSessions.first)
            #expect(server.endSessions.count == 1)
            #expect(endSession.method == "GET" && endSession.refusal == nil)
            #expect(endSession.parameters["client_id"] == server.options.clientID)
            #expect(endSession.parameters["id_token_hint"] == nil && !endSession.idTokenHintInURL)
            let redirect = try #require(endSession.parameters["post_logout_redirect_uri"])
            #expect(redirect.hasPrefix("http://127.0.0.1:"))
            let state = try #require(endSession.parameters["state"])
            #expect(state.count >= 43)
            #expect(endSession.redirectedTo?.hasPrefix(redirect + "?state=") == true)
            let endSessionTarget = try #require(server.requestLog.first { $0.target.hasPrefix("/end_session") }?.target)
            #expect(!endSessionTarget.contains("id_token") && !endSessionTarget.contains("eyJ"))
            for secret in [tokens.access, tokens.refresh] {
                #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret))
            }

            // Nothing is left to refresh with: eua refresh says to sign in.
            let again = try await eua(["refresh", "--state-file", stateFile])
            #expect(again.status == 1 && again.stderr.contains("sign in first"))
        }
    }

    @Test("logout --json: one JSON object on the last line, no token in it")
    func jsonOutput() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            let tokens = try await signIn(server, stateFile: stateFile)
            let result = try await eua(["logout", "--state-file", stateFile, "--json"] + Self.back + Self.follow)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let json = try LoginCommandTests.lastJSON(result.stdout)
            #expect(json["issuer"] as? String == server.issuer)
            #expect(json["state_file"] as? String == stateFile)
            #expect(json["revoked"] as? [String] == ["refresh_token", "access_token"])
            #expect((json["not_revoked"] as? [Any])?.isEmpty == true)
            #expect(json["revocation_supported"] as? Bool == true)
            #expect(json["end_session"] as? String == "completed")
            #expect(json["state_removed"] as? Bool == true && json["state_kept"] as? Bool == false)
            #expect(!result.stdout.contains(tokens.access) && !result.stdout.contains(tokens.refresh))
        }
    }

    @Test("no saved state: exit 4, says so, nothing sent")
    func notSignedIn() async throws {
        let folder = try TemporaryFolder()
        let missing = folder.path + "/none.json"
        let result = try await eua(["logout", "--state-file", missing, "--json"])
        #expect(result.status == 4)
        #expect(result.stderr.contains("not signed in: there is no saved state at \(missing)"))
        let json = try LoginCommandTests.lastJSON(result.stdout)
        #expect(json["not_signed_in"] as? Bool == true && json["state_removed"] as? Bool == false)
        let local = try await eua(["logout", "--local", "--state-file", missing])
        #expect(local.status == 4)
    }

    @Test("--local forgets the state and sends nothing to the provider")
    func localOnly() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            let tokens = try await signIn(server, stateFile: stateFile)
            let before = server.requestLog.count
            let result = try await eua(["logout", "--local", "--state-file", stateFile])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdout == "Forgot the saved state \(stateFile) (nothing was sent to the provider).\n")
            #expect(!FileManager.default.fileExists(atPath: stateFile))
            #expect(server.requestLog.count == before && server.revocations.isEmpty && server.endSessions.isEmpty)
            #expect(server.isLiveRefreshToken(tokens.refresh))
        }
    }

    @Test("a provider without end_session_endpoint: a clear warning; revocation and forgetting still happen (exit 0)")
    func noEndSessionEndpoint() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            _ = try await signIn(server, stateFile: stateFile)
            // The state saved the metadata at sign-in; a provider that drops end-session since is read again from it.
            server.update { $0.offersEndSession = false }
            let contents = try String(contentsOfFile: stateFile, encoding: .utf8)
                .replacingOccurrences(of: "\"end_session_endpoint\"", with: "\"x_end_session_endpoint\"")
            try contents.write(toFile: stateFile, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: stateFile)
            let result = try await eua(["logout", "--state-file", stateFile] + Self.follow)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(
                result.stderr.contains(
                    "advertises no end_session_endpoint (OpenID Connect RP-Initiated Logout): its browser "
                        + "session goes on"))
            #expect(server.revocations.count == 2 && server.endSessions.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: stateFile))
            #expect(result.stdout.hasSuffix("Forgot the saved state \(stateFile).\nSigned out of \(server.issuer).\n"))
        }
    }

    @Test("a provider without revocation_endpoint: the tokens are only forgotten, and the warning says so")
    func noRevocationEndpoint() async throws {
        try await LocalAuthorizationServer.withServer { server in
            server.update { $0.offersRevocation = false }
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            _ = try await signIn(server, stateFile: stateFile)
            let result = try await eua(["logout", "--state-file", stateFile, "--no-end-session"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(
                result.stderr.contains(
                    "advertises no revocation_endpoint (RFC 7009): the tokens were not revoked, only forgotten"))
            #expect(server.revocations.isEmpty && server.endSessions.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: stateFile))
        }
    }

    @Test(
        "revocation refused (the client's secret is no longer right): exit 3, the reason, state removed; --keep-on-failure keeps it"
    )
    func revocationRefused() async throws {
        try await LocalAuthorizationServer.withServer(.init(clientID: "conf", clientSecret: "s3cret")) { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            _ = try await signIn(server, stateFile: stateFile, secret: "s3cret")
            server.update { $0.clientSecret = "rotated" }

            let kept = try await eua(
                ["logout", "--state-file", stateFile, "--no-end-session", "--keep-on-failure", "--json"],
                environment: ["EUA_CLIENT_SECRET": "s3cret"])
            #expect(kept.status == 3, "stderr: \(kept.stderr)")
            #expect(
                kept.stderr.contains(
                    "warning: the refresh token was not revoked: the revocation endpoint \(server.issuer)/revoke "
                        + "refused to revoke the refresh token (HTTP 401) with 'invalid_client'"))
            #expect(kept.stdout.contains("Kept the saved state \(stateFile): a token could not be revoked"))
            #expect(FileManager.default.fileExists(atPath: stateFile))
            let json = try LoginCommandTests.lastJSON(kept.stdout)
            #expect(
                (json["not_revoked"] as? [[String: Any]])?.map { $0["token_type_hint"] as? String } == [
                    "refresh_token", "access_token",
                ])
            #expect(server.revocations.map(\.refusal) == ["invalid_client", "invalid_client"])
            #expect(server.revocations.allSatisfy { $0.clientAuthentication == "client_secret_basic" })

            let removed = try await eua(
                ["logout", "--state-file", stateFile, "--no-end-session"],
                environment: ["EUA_CLIENT_SECRET": "s3cret"])
            #expect(removed.status == 3)
            #expect(removed.stdout.contains("Forgot the saved state \(stateFile)."))
            #expect(
                removed.stdout.hasSuffix("Signed out here; not everything at \(server.issuer) was done (see above).\n"))
            #expect(!FileManager.default.fileExists(atPath: stateFile))
        }
    }

    @Test("a confidential client without its secret: nothing is revoked, and the message says how to give it")
    func confidentialWithoutSecret() async throws {
        try await LocalAuthorizationServer.withServer(.init(clientID: "conf", clientSecret: "s3cret")) { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            _ = try await signIn(server, stateFile: stateFile, secret: "s3cret")
            let result = try await eua(["logout", "--state-file", stateFile, "--no-end-session", "--keep-on-failure"])
            #expect(result.status == 3)
            #expect(result.stderr.contains("--client-secret-file PATH"))
            #expect(server.revocations.isEmpty)
            let ok = try await eua(
                ["logout", "--state-file", stateFile, "--no-end-session"], environment: ["EUA_CLIENT_SECRET": "s3cret"])
            #expect(ok.status == 0, "stderr: \(ok.stderr)")
            #expect(server.revocations.map(\.revoked) == ["refresh_token", "access_token"])
            #expect(
                server.revocations.allSatisfy {
                    $0.clientAuthentication == "client_secret_basic" && $0.clientID == "conf"
                })
        }
    }

    @Test(
        "a registered post-logout redirect URI: refused when another is sent, completed with --post-logout-redirect-uri"
    )
    func registeredPostLogoutRedirectURI() async throws {
        try await LocalAuthorizationServer.withServer { server in
            server.update { $0.postLogoutRedirectURIs = ["http://127.0.0.1/signed-out"] }
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            _ = try await signIn(server, stateFile: stateFile)
            let refused = try await eua(
                [
                    "logout", "--state-file", stateFile, "--keep-on-failure", "--timeout", "20",
                    "--post-logout-redirect-uri", "http://127.0.0.1/other",
                ] + Self.follow)
            #expect(refused.status == 3, "stderr: \(refused.stderr)")
            #expect(refused.stderr.contains("the provider's session was not ended"))
            #expect(server.endSessions.first?.refusal == "post_logout_redirect_uri is not one the client registered")
            #expect(!FileManager.default.fileExists(atPath: stateFile), "revocation worked, so the state is gone")

            _ = try await signIn(server, stateFile: stateFile)
            let result = try await eua(
                [
                    "logout", "--state-file", stateFile, "--post-logout-redirect-uri",
                    "http://127.0.0.1/signed-out",
                ] + Self.follow)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let last = try #require(server.endSessions.last)
            #expect(
                last.refusal == nil && last.parameters["post_logout_redirect_uri"]?.hasSuffix("/signed-out") == true)
        }
    }

    @Test("the person never finishes on the provider's page: the wait ends at --timeout, exit 3, state removed")
    func endSessionTimesOut() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            _ = try await signIn(server, stateFile: stateFile)
            let started = Date()
            let result = try await eua(
                ["logout", "--state-file", stateFile, "--timeout", "2", "--agent", "headless"] + Self.back + [
                    "--agent-option", "mode=never",
                ])
            #expect(result.status == 3)
            #expect(Date().timeIntervalSince(started) < 30)
            #expect(
                result.stderr.contains("the provider's session was not ended") && result.stderr.contains("[timedOut]"))
            #expect(server.revocations.count == 2)
            #expect(!FileManager.default.fileExists(atPath: stateFile))
        }
    }

    @Test("--no-redirect: the end-session request carries no post_logout_redirect_uri, and nothing is awaited")
    func noRedirect() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            _ = try await signIn(server, stateFile: stateFile)
            // The manual agent shows the URL (on stderr) and is done: the person opens it; here the test does.
            let result = try await eua([
                "logout", "--state-file", stateFile, "--no-redirect", "--json", "--agent", "manual",
                "--agent-option", "paste=false",
            ])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(
                result.stdout.contains(
                    "Sent the sign-out request to \(server.issuer); the browser shows its page, and eua "
                        + "cannot confirm that the session ended there"))
            #expect(try LoginCommandTests.lastJSON(result.stdout)["end_session"] as? String == "sent")
            #expect(!FileManager.default.fileExists(atPath: stateFile))
            let shown = try #require(
                result.stderr.split(whereSeparator: \.isWhitespace).first { $0.contains("/end_session?") })
            #expect(!shown.contains("id_token_hint") && !shown.contains("post_logout_redirect_uri"))
            let target = String(shown[shown.range(of: "/end_session?")!.lowerBound...])
            let connection = try RawConnection(port: server.port)
            defer { connection.close() }
            _ = connection.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nConnection: close\r\n\r\n")
            #expect(connection.status() == 200)
            let endSession = try #require(server.endSessions.first)
            #expect(
                endSession.parameters["client_id"] == server.options.clientID && endSession.parameters["state"] != nil)
            #expect(endSession.parameters["post_logout_redirect_uri"] == nil && endSession.redirectedTo == nil)
        }
    }

    @Test(
        "hostile and contradictory options are usage errors, before anything is done",
        arguments: [
            (
                ["--post-logout-redirect-uri", "https://evil.example/cb"],
                "--post-logout-redirect-uri https://evil.example/cb"
            ),
            (
                ["--post-logout-redirect-uri", "http://127.0.0.1/cb#frag"],
                "--post-logout-redirect-uri http://127.0.0.1/cb#frag"
            ),
            (["--post-logout-redirect-uri", "com.example.app://out"], "with a single '/'"),
            (["--post-logout-redirect-uri", "myapp:/out"], "not a reverse domain name"),
            (["--post-logout-redirect-uri", "http://127.0.0.1/x", "--no-redirect"], "not both"),
            (["--local", "--agent", "headless"], "--local only forgets the saved state"),
            (["--timeout", "0"], "--timeout must be"),
            (["--agent-option", "novalue"], "key=value"),
        ])
    func usageErrors(arguments: [String], message: String) async throws {
        let folder = try TemporaryFolder()
        let stateFile = folder.path + "/s.json"
        try "{}".write(toFile: stateFile, atomically: true, encoding: .utf8)
        let result = try await eua(["logout", "--state-file", stateFile] + arguments)
        #expect(result.status == 64, "stderr: \(result.stderr)")
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: stateFile))
    }

    @Test("Ctrl-C while the provider's page is shown: exit 130, a clear line, the state kept, the receiver closed")
    func interrupted() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            _ = try await signIn(server, stateFile: stateFile)
            let process = try InteractiveProcess(
                try TestPaths.product("eua"),
                [
                    "logout", "--state-file", stateFile, "--agent", "manual", "--agent-option",
                    "paste=false", "--timeout", "60",
                ] + Self.back,
                environment: Self.environment)
            let stderr = try await offThePool { try process.waitForStderr { $0.contains("/end_session?") } }
            let shown = try #require(
                stderr.split(whereSeparator: \.isWhitespace).first { $0.contains("/end_session?") })
            let query = URLComponents(string: String(shown))?.queryItems ?? []
            let redirect = try #require(query.first { $0.name == "post_logout_redirect_uri" }?.value)
            let port = try #require(URL(string: redirect)?.port)
            #expect(!RawConnection.isRefused(port: port), "the receiver listens while waiting")
            process.signal(SIGINT)
            let result = try await offThePool { try process.waitForExit(timeout: 20) }
            #expect(result.status == 130, "stderr: \(result.stderr)")
            #expect(
                result.stderr.contains(
                    "eua logout: interrupted; the sign-out was cancelled after revoking the refresh token "
                        + "and access token; the saved state was kept, marked signed out"), "\(result.stderr)")
            #expect(stderr.contains("To sign out of the provider, open this URL"))
            #expect(FileManager.default.fileExists(atPath: stateFile))
            #expect(RawConnection.isRefused(port: port), "the receiver was closed")
            #expect(server.revocations.count == 2, "the tokens were revoked before the page was shown")
        }
    }

    @Test("an agent that cannot be used: exit 1 before anything is sent, saying what to do")
    func unknownAgent() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            _ = try await signIn(server, stateFile: stateFile)
            let before = server.requestLog.count
            let result = try await eua(["logout", "--state-file", stateFile, "--agent", "no-such-agent"])
            #expect(result.status == 1)
            #expect(
                result.stderr.contains("no agent can show the provider's sign-out page (give --no-end-session"),
                "\(result.stderr)")
            #expect(server.requestLog.count == before && FileManager.default.fileExists(atPath: stateFile))
        }
    }

    @Test("a state file that is not a state: exit 1 with the reason, the file left alone")
    func corruptState() async throws {
        let folder = try TemporaryFolder()
        let stateFile = folder.path + "/s.json"
        _ = FileManager.default.createFile(
            atPath: stateFile, contents: Data("not json".utf8), attributes: [.posixPermissions: 0o600])
        let result = try await eua(["logout", "--state-file", stateFile])
        #expect(result.status == 1)
        #expect(result.stderr.contains("it is not JSON") && result.stderr.contains("[stateFileInvalid]"))
        #expect(FileManager.default.fileExists(atPath: stateFile))
    }
}
