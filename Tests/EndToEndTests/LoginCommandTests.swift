// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentTesting
import Foundation
import Testing

/// `eua login` and `eua refresh`, the built binary, against real servers: oidc-provider-mock from
/// PyPI, and the testing kit's local authorization server for what the mock cannot do.
@Suite("eua login and eua refresh, end to end", .onOwnThreads)
struct LoginCommandTests {
    static let environment = ["EUA_ALLOW_TEST_AGENTS": "1", "EUA_CLIENT_SECRET": ""]

    func eua(_ arguments: [String], environment: [String: String] = LoginCommandTests.environment) async throws
        -> ProcessResult
    {
        let executable = try TestPaths.product("eua")
        return try await offThePool {
            try ProcessRunner.run(executable, arguments, environment: environment, timeout: 90)
        }
    }

    func login(
        _ issuer: String, clientID: String = "c", secret: String? = "s", stateFile: String,
        extra: [String] = []
    ) async throws -> ProcessResult {
        var arguments = [
            "login", "--issuer", issuer, "--client-id", clientID, "--scope", "openid email",
            "--agent", "headless", "--agent-option", "mode=follow", "--agent-option", "form.sub=alice",
            "--timeout", "30", "--state-file", stateFile,
        ]
        if let secret { arguments += ["--client-secret", secret] }
        return try await eua(arguments + extra)
    }

    static func lastJSON(_ output: String) throws -> [String: Any] {
        let line = try #require(output.split(separator: "\n").last)
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    static func claims(ofJWT token: String) throws -> [String: Any] {
        var payload = String(token.split(separator: ".")[1]).replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/")
        while payload.count % 4 != 0 { payload += "=" }
        let data = try #require(Data(base64Encoded: payload))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("oidc-provider-mock: login --json prints the tokens, the ID token names alice; refresh reloads the state")
    func mockLoginAndRefresh() async throws {
        let mock = try await OIDCProviderMock.start()
        let folder = try TemporaryFolder()
        let stateFile = folder.path + "/eua/state.json"
        let result = try await login(mock.issuer, stateFile: stateFile, extra: ["--json"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let json = try Self.lastJSON(result.stdout)
        let accessToken = try #require(json["access_token"] as? String)
        let idToken = try #require(json["id_token"] as? String)
        #expect(json["refresh_token"] is String)
        #expect(try Self.claims(ofJWT: idToken)["sub"] as? String == "alice")
        #expect(json["subject"] as? String == "alice")
        let mode = try FileManager.default.attributesOfItem(atPath: stateFile)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        // A new process reads the saved state and refreshes with it (the secret is not saved).
        let refreshed = try await eua(
            ["refresh", "--state-file", stateFile, "--json"],
            environment: ["EUA_CLIENT_SECRET": "s"])
        #expect(refreshed.status == 0, "stderr: \(refreshed.stderr)")
        let after = try Self.lastJSON(refreshed.stdout)
        #expect(after["access_token"] as? String != accessToken)
        #expect(after["subject"] as? String == "alice")
        let reread = try await eua(["refresh", "--state-file", stateFile, "--if-needed", "--json"])
        #expect(reread.status == 0, "stderr: \(reread.stderr)")
        #expect(
            try Self.lastJSON(reread.stdout)["access_token"] as? String == after["access_token"] as? String,
            "the refreshed tokens were saved and reload")
    }

    @Test("oidc-provider-mock: without --json, plain words and no token on screen")
    func mockPlainOutput() async throws {
        let mock = try await OIDCProviderMock.start()
        let folder = try TemporaryFolder()
        let stateFile = folder.path + "/state.json"
        let result = try await login(mock.issuer, stateFile: stateFile)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("Signed in as ") && result.stdout.contains(" at \(mock.issuer)."))
        #expect(result.stdout.contains(stateFile))
        let saved = try String(contentsOfFile: stateFile, encoding: .utf8)
        let token = try #require(try JSONSerialization.jsonObject(with: Data(saved.utf8)) as? [String: Any])
        let tokens = try #require(token["token_response"] as? [String: Any])
        for key in ["access_token", "refresh_token", "id_token"] {
            let value = try #require(tokens[key] as? String)
            #expect(!result.stdout.contains(value) && !result.stderr.contains(value))
        }
    }

    @Test("a public client with PKCE against the local authorization server, which checks both")
    func publicClient() async throws {
        try await LocalAuthorizationServer.withServer(.init(clientID: "native-app")) { server in
            let folder = try TemporaryFolder()
            let result = try await login(
                server.issuer, clientID: "native-app", secret: nil, stateFile: folder.path + "/s.json",
                extra: ["--json"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(try Self.lastJSON(result.stdout)["subject"] as? String == "alice")
            #expect(server.tokenRequests.first?.clientAuthentication == "none")
        }
    }

    @Test("a tampered ID token fails the login with a clear error and saves nothing")
    func tamperedSignature() async throws {
        try await LocalAuthorizationServer.withServer(.init(misbehaviors: [.tamperedSignature])) { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            let result = try await login(
                server.issuer, clientID: server.options.clientID, secret: nil, stateFile: stateFile)
            #expect(result.status != 0)
            #expect(result.stderr.contains("signature does not verify") && result.stderr.contains("idTokenInvalid"))
            #expect(!FileManager.default.fileExists(atPath: stateFile))
        }
    }

    @Test("a test agent needs EUA_ALLOW_TEST_AGENTS=1")
    func testAgentRefused() async throws {
        let result = try await eua(
            ["login", "--issuer", "http://127.0.0.1:1", "--client-id", "c", "--agent", "headless"],
            environment: ["EUA_ALLOW_TEST_AGENTS": "0"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("EUA_ALLOW_TEST_AGENTS=1"))
    }

    @Test("--port replaces the configuration's port-range (one that would fail: ports 1-2); the configured path stays")
    func portOverridesConfiguredRange() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let configFolder = folder.path + "/config/eua"
            try FileManager.default.createDirectory(atPath: configFolder, withIntermediateDirectories: true)
            try "[receiver]\nport-range = \"1-2\"\npath = \"/cb\"\n"
                .write(toFile: configFolder + "/config.toml", atomically: true, encoding: .utf8)
            let port = try OIDCProviderMock.freePort()
            let stateFile = folder.path + "/state.json"
            let result = try await eua(
                [
                    "login", "--issuer", server.issuer, "--client-id", server.options.clientID, "--agent", "headless",
                    "--agent-option", "mode=follow", "--port", String(port), "--timeout", "30", "--state-file",
                    stateFile, "--json",
                ],
                environment: Self.environment.merging(["XDG_CONFIG_HOME": folder.path + "/config"]) { $1 })
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(server.authorizationRequests.first?["redirect_uri"] == "http://127.0.0.1:\(port)/cb")
            #expect(try Self.lastJSON(result.stdout)["subject"] as? String == "alice")
            #expect(FileManager.default.fileExists(atPath: stateFile))
        }
    }
}
