// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentTesting
import Foundation
import Testing

extension RealBrowsers {
    /// `eua login` through real headless Chromium and Firefox ESR, each with an ephemeral profile, through the
    /// loopback receiver, against the testing kit's auto-approving local authorization server.
    @Suite("eua login through real headless browsers", .onOwnThreads, .timeLimit(.minutes(3)))
    struct BrowserLoginTests {
        @Test(
            "tokens come back; no browser process of the run is left and the temporary profile is gone",
            arguments: ["chromium", "firefox-esr"])
        func login(_ browser: String) async throws {
            try await LocalAuthorizationServer.withServer(.init(clientID: "c")) { server in
                let folder = try TemporaryFolder()
                let before = BrowserLeftovers.scan()
                let executable = try TestPaths.product("eua")
                let arguments = [
                    "login", "--issuer", server.issuer, "--client-id", "c", "--scope", "openid",
                    "--agent", browser, "--agent-option", "headless=true", "--agent-option", "ephemeral=true",
                    "--timeout", "60", "--state-file", folder.path + "/state.json", "--json",
                ]
                let started = Date()
                let result = try await offThePool {
                    try ProcessRunner.run(
                        executable, arguments, environment: ["EUA_ALLOW_TEST_AGENTS": "1"], timeout: 120)
                }
                let elapsed = Date().timeIntervalSince(started)
                #expect(result.status == 0, "stderr: \(result.stderr)")
                let line = try #require(result.stdout.split(separator: "\n").last)
                let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                #expect((json["id_token"] as? String)?.split(separator: ".").count == 3)
                #expect(json["access_token"] is String)
                #expect(server.tokenRequests.first?.codeVerifier != nil, "PKCE went through the real browser flow")
                let after = BrowserLeftovers.scan()
                #expect(after.processes.isEmpty, "no browser process of the run is left: \(after.processes)")
                #expect(after.folders == before.folders, "the temporary profile is gone")
                print("eua login through headless \(browser): \(String(format: "%.2f", elapsed)) s, whole process")
            }
        }
    }
}
