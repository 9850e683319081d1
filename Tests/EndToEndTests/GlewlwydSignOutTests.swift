// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import Foundation
import Testing

/// Signing out of Glewlwyd (issue 40.4), which ends a session only for an `id_token_hint` and takes the end-session
/// request only by GET: with `client_id` alone it answers an empty page and `eua logout` says which mode it needs;
/// with `--end-session hint-get` the stand-in browser is given eua's one-time loopback page, submits its form, confirms
/// on Glewlwyd's end-session page, and comes back — and Glewlwyd's database shows the person's session ended.
@Suite("Glewlwyd: sign-out with the ID token through the loopback receiver", .onOwnThreads)
struct GlewlwydSignOutTests {
    typealias Setup = GlewlwydProviderTests.Setup

    /// A confidential client with a registered post-logout redirect URI, signed in as alice through the stand-in browser.
    static func signedIn(_ setup: Setup, postLogout: String) async throws -> String {
        try setup.provider.addClient(
            "web-app", secret: GlewlwydProviderTests.secret, redirectURIs: [setup.redirectURI],
            postLogoutRedirectURI: postLogout)
        let secretFile = try setup.secretFile()
        let login = try await setup.login([
            "--client-id", "web-app", "--client-secret-file", secretFile,
            "--redirect-uri", setup.redirectURI,
        ])
        try #require(login.status == 0, "stderr: \(login.stderr)")
        return secretFile
    }

    @Test(
        "client_id alone: Glewlwyd answers an empty page; eua logout waits its timeout, then says hint-get is needed, and so does eua doctor"
    )
    func clientIDAlone() async throws {
        let setup = try await Setup()
        defer { setup.provider.stop() }
        let postLogout = "http://127.0.0.1:\(try OIDCProviderMock.freePort())/signed-out"
        let secretFile = try await Self.signedIn(setup, postLogout: postLogout)
        let result = try await setup.eua([
            "logout", "--state-file", setup.stateFile, "--client-secret-file", secretFile,
            "--post-logout-redirect-uri", postLogout, "--agent", "system-browser",
            "--timeout", "8",
        ])
        #expect(result.status == 3, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("it ends a session only for an id_token_hint"), "stderr: \(result.stderr)")
        let endSession = try #require(
            try setup.provider.browserRequests().first {
                $0.path == "/api/oidc/end_session/" || $0.path == "/api/oidc/end_session"
            })
        #expect(endSession.status == 200 && !endSession.query.contains("id_token_hint"))
        #expect(
            try setup.provider.records().user_sessions.contains { $0.username == "alice" && $0.enabled == 1 },
            "the session at the provider goes on")
        let doctor = try await setup.eua(["doctor", "--issuer", setup.provider.issuer])
        #expect(doctor.stdout.contains("it ends a session only for a hint"), "\(doctor.stdout)")
    }

    @Test(
        "hint-get: the browser is given only the one-time loopback page; Glewlwyd ends alice's session and sends the browser back"
    )
    func hintGet() async throws {
        let setup = try await Setup()
        defer { setup.provider.stop() }
        let postLogout = "http://127.0.0.1:\(try OIDCProviderMock.freePort())/signed-out"
        let secretFile = try await Self.signedIn(setup, postLogout: postLogout)
        #expect(try setup.provider.records().user_sessions.contains { $0.username == "alice" && $0.enabled == 1 })
        let signIn = try setup.provider.browserRequests().count
        let result = try await setup.eua([
            "logout", "--state-file", setup.stateFile, "--client-secret-file", secretFile,
            "--post-logout-redirect-uri", postLogout, "--end-session", "hint-get",
            "--agent", "system-browser", "--timeout", "60",
        ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(
            result.stdout.contains("Ended the session at \(setup.provider.issuer); the browser came back to this app."))
        let browsed = Array(try setup.provider.browserRequests().dropFirst(signIn))
        #expect(
            browsed.first?.path.hasPrefix("/eua-hand-off/") == true && browsed.first?.query.isEmpty == true,
            "the browser was opened at the one-time loopback page: \(browsed)")
        #expect(
            browsed.contains {
                $0.path.contains("/end_session") && $0.query.contains("id_token_hint") && $0.status == 302
            })
        #expect(browsed.contains { $0.method == "DELETE" && $0.path == "/api/auth/" && $0.status == 200 })
        #expect(browsed.last?.path == "/signed-out")
        let records = try setup.provider.records()
        #expect(
            records.user_sessions.filter { $0.username == "alice" }.allSatisfy { $0.enabled == 0 },
            "Glewlwyd recorded alice's session ended: \(records.user_sessions)")
        #expect(records.refresh_tokens.allSatisfy { $0.enabled == 0 })
    }
}
