// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentTesting
import Foundation
import Testing

/// `eua login` against django-oauth-toolkit 3.4.1 with the OpenID Connect request parameters: the provider's custom
/// claims (groups, a nested object) reach `--json` and the saved state, RFC 8707 resources reach its database, and
/// its `auth_time` passes the `max_age` check.
@Suite("eua login claims and parameters against django-oauth-toolkit", .onOwnThreads)
struct DjangoProviderClaimsTests {
    static let password = "correct horse battery"

    @Test("groups and roles claims in --json and the state; both resources on the grant's token; max_age met")
    func claimsAndResources() async throws {
        let provider = try await DjangoProvider.start()
        defer { provider.stop() }
        try provider.addUser(
            "alice", password: Self.password, name: "Alice Example", email: "alice@example.com",
            groups: ["staff", "admins"])
        try provider.addApplication(clientID: "native-app", redirectURIs: ["http://127.0.0.1/callback"])
        let folder = try TemporaryFolder()
        let stateFile = folder.path + "/state.json"
        let arguments = [
            "login", "--issuer", provider.issuer, "--client-id", "native-app", "--scope", "openid profile email",
            "--redirect-uri", "http://127.0.0.1/callback",
            "--agent", "headless", "--agent-option", "mode=follow", "--agent-option", "form.username=alice",
            "--agent-option", "form.password=\(Self.password)", "--timeout", "60", "--state-file", stateFile,
            "--max-age", "600", "--resource", "https://api.example.com/", "--resource", "https://files.example.com/",
            "--json",
        ]
        let executable = try TestPaths.product("eua")
        let result = try await offThePool {
            try ProcessRunner.run(
                executable, arguments, environment: ["EUA_ALLOW_TEST_AGENTS": "1", "EUA_CLIENT_SECRET": ""],
                timeout: 90)
        }
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let line = try #require(result.stdout.split(separator: "\n").last)
        let output = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let claims = try #require(output["claims"] as? [String: Any])
        #expect(claims["groups"] as? [String] == ["admins", "staff"])
        let roles = try #require(claims["roles"] as? [String: Any])
        #expect(roles["groups"] as? Double == 2)
        #expect(roles["staff"] as? Bool == false)
        #expect(claims["auth_time"] is Double, "the provider's auth_time passed the max_age check")
        let state = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stateFile)))
                as? [String: Any])
        #expect((state["id_token_claims"] as? [String: Any])?["groups"] as? [String] == ["admins", "staff"])
        let records = try provider.records()
        #expect(records.access_tokens.count == 1)
        #expect(
            records.access_tokens.first?.resource == ["https://api.example.com/", "https://files.example.com/"],
            "the provider bound the token to both resources")
        let authorize = try provider.requestLog().filter { $0.method == "GET" && $0.path == "/o/authorize/" }
        #expect(authorize.first?.query.contains("max_age") == true, "\(authorize.first?.query ?? [])")
    }
}
