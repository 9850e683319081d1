// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentTesting
import Foundation
import Testing

/// `eua logout --end-session hint-post|hint-get` (issue 40.4) against the testing kit's local server: the ID token
/// reaches the provider as `id_token_hint` only in a form the loopback receiver serves once; the agent is given only
/// that one-time loopback URL. And a provider that ends a session only for a hint is noticed, for `eua doctor`.
@Suite("eua logout: the ID token through the loopback receiver's one-time form", .onOwnThreads)
struct LogoutHintTests {
    static let back = LogoutCommandTests.back
    let run = LogoutCommandTests()

    /// The saved ID token of `stateFile`.
    static func idToken(_ stateFile: String) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: stateFile))
        let state = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let tokens = try #require(state["token_response"] as? [String: Any])
        return try #require(tokens["id_token"] as? String)
    }

    @Test(
        "hint-post and hint-get: the provider got the ID token as id_token_hint (by POST: not in any URL), and sent the browser back",
        arguments: ["hint-post", "hint-get"])
    func hint(mode: String) async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            _ = try await run.signIn(server, stateFile: stateFile)
            let idToken = try Self.idToken(stateFile)
            let result = try await run.eua(
                ["logout", "--state-file", stateFile, "--end-session", mode, "--timeout", "30"]
                    + Self.back + LogoutCommandTests.follow)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdout.contains("Ended the session at \(server.issuer); the browser came back to this app."))
            let endSession = try #require(server.endSessions.first)
            #expect(
                server.endSessions.count == 1 && endSession.refusal == nil, "\(String(describing: endSession.refusal))")
            #expect(endSession.method == (mode == "hint-post" ? "POST" : "GET"))
            #expect(endSession.parameters["id_token_hint"] == idToken)
            #expect(endSession.idTokenHintInURL == (mode == "hint-get"), "by POST the hint is in no URL at all")
            #expect(endSession.parameters["client_id"] == server.options.clientID)
            #expect(endSession.parameters["post_logout_redirect_uri"]?.hasSuffix("/logout") == true)
            #expect(endSession.redirectedTo != nil)
            #expect(!result.stdout.contains(idToken) && !result.stderr.contains(idToken))
            #expect(!FileManager.default.fileExists(atPath: stateFile))
        }
    }

    @Test("the agent is given only the one-time loopback URL; the page holds the form once, then is gone")
    func oneTimePage() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            _ = try await run.signIn(server, stateFile: stateFile)
            let idToken = try Self.idToken(stateFile)
            let process = try InteractiveProcess(
                try TestPaths.product("eua"),
                [
                    "logout", "--state-file", stateFile, "--agent", "manual", "--agent-option",
                    "paste=false", "--end-session", "hint-post", "--timeout", "60",
                ] + Self.back,
                environment: LogoutCommandTests.environment)
            let stderr = try await offThePool { try process.waitForStderr { $0.contains("/eua-hand-off/") } }
            #expect(!stderr.contains(idToken) && !stderr.contains("id_token_hint"))
            let shown = try #require(
                stderr.split(whereSeparator: \.isWhitespace).first { $0.contains("/eua-hand-off/") })
            let url = try #require(URL(string: String(shown)))
            #expect(url.host == "127.0.0.1" && url.query == nil)
            let port = try #require(url.port)
            let first = try RawConnection(port: port)
            _ = first.send("GET \(url.path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
            let page = first.readAll()
            first.close()
            #expect(RawConnection.status(of: page) == 200)
            #expect(page.contains("<form method=\"post\" action=\"\(server.issuer)/end_session\">"), "\(page)")
            #expect(page.contains("name=\"id_token_hint\" value=\"\(idToken)\""))
            #expect(page.contains("name=\"post_logout_redirect_uri\" value=\"http://127.0.0.1:"))
            #expect(page.contains("Content-Security-Policy: default-src 'none'; script-src 'nonce-"))
            #expect(page.contains("Cache-Control: no-store"))
            let second = try RawConnection(port: port)
            _ = second.send("GET \(url.path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
            #expect(second.status() == 404, "served once only")
            second.close()
            process.signal(SIGINT)
            let result = try await offThePool { try process.waitForExit(timeout: 20) }
            #expect(result.status == 130, "stderr: \(result.stderr)")
            #expect(server.endSessions.isEmpty, "nothing reached the provider: the form was never submitted")
        }
    }

    @Test(
        "a provider that answers client_id alone with an empty page: noticed, told, and eua doctor says which mode it needs"
    )
    func providerNeedsHint() async throws {
        var options = LocalAuthorizationServerOptions()
        options.misbehaviors = [.endSessionNeedsHint]
        try await LocalAuthorizationServer.withServer(options) { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            let environment = LogoutCommandTests.environment.merging(["XDG_STATE_HOME": folder.path + "/state"]) { $1 }
            _ = try await run.signIn(server, stateFile: stateFile)
            let plain = try await run.eua(
                ["logout", "--state-file", stateFile, "--timeout", "5", "--json"] + Self.back
                    + LogoutCommandTests.follow, environment: environment)
            #expect(plain.status == 3, "stderr: \(plain.stderr)")
            #expect(
                plain.stderr.contains(
                    "answered the end-session request with an empty page and no redirect: it ends a "
                        + "session only for an id_token_hint"), "\(plain.stderr)")
            #expect(try LoginCommandTests.lastJSON(plain.stdout)["end_session_needs_hint"] as? Bool == true)
            let doctor = try await run.eua(["doctor", "--issuer", server.issuer], environment: environment)
            #expect(
                doctor.stdout.contains(
                    "sign-out: eua logout saw \(server.issuer) answer an end-session request without "
                        + "id_token_hint with an empty page"), "\(doctor.stdout)")

            _ = try await run.signIn(server, stateFile: stateFile)
            let hinted = try await run.eua(
                ["logout", "--state-file", stateFile, "--end-session", "hint-post", "--timeout", "30"]
                    + Self.back + LogoutCommandTests.follow, environment: environment)
            #expect(hinted.status == 0, "stderr: \(hinted.stderr)")
            #expect(server.endSessions.last?.redirectedTo != nil)
        }
    }

    @Test(
        "--end-session: a bad mode, or a hint mode with no way to receive, is refused before anything is sent",
        arguments: [
            (["--end-session", "hint"], 64, "--end-session must be client-id, hint-post or hint-get"),
            (["--end-session", "hint-post", "--no-redirect"], 64, "needs a post-logout redirect URI"),
            (["--end-session", "hint-get"], 1, "needs a loopback post-logout redirect URI registered"),
        ])
    func usage(arguments: [String], status: Int32, message: String) async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            _ = try await run.signIn(server, stateFile: stateFile)
            let before = server.revocations.count
            let result = try await run.eua(
                ["logout", "--state-file", stateFile] + arguments + LogoutCommandTests.follow)
            #expect(result.status == status, "stderr: \(result.stderr)")
            #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
            #expect(server.revocations.count == before && FileManager.default.fileExists(atPath: stateFile))
        }
    }
}
