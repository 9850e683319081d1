// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentTesting
import Foundation
import Testing

/// The built `eua login` with the OpenID Connect request parameters (`--prompt`, `--login-hint`, `--max-age`,
/// `--acr-values`, `--ui-locales`, `--resource`, `--param`, `--token-param`) and the ID token's claims in `--json`,
/// against the local authorization server: what the server received, what was printed and what was saved.
@Suite("eua login request parameters and claims", .onOwnThreads)
struct LoginParametersTests {
    static let environment = ["EUA_ALLOW_TEST_AGENTS": "1", "EUA_CLIENT_SECRET": ""]

    func login(
        _ server: LocalAuthorizationServer, stateFile: String, _ extra: [String],
        config: String? = nil
    ) async throws -> ProcessResult {
        let executable = try TestPaths.product("eua")
        var environment = Self.environment
        if let config {
            let folder = URL(fileURLWithPath: stateFile).deletingLastPathComponent().appendingPathComponent(
                "config/eua")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try config.write(to: folder.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
            environment["XDG_CONFIG_HOME"] = folder.deletingLastPathComponent().path
        }
        let arguments =
            [
                "login", "--issuer", server.issuer, "--client-id", server.options.clientID, "--scope", "openid email",
                "--agent", "headless", "--agent-option", "mode=follow", "--timeout", "30",
                "--state-file", stateFile,
            ] + extra
        return try await offThePool { [environment] in
            try ProcessRunner.run(executable, arguments, environment: environment, timeout: 90)
        }
    }

    static func json(_ text: String) throws -> [String: Any] {
        let line = try #require(text.split(separator: "\n").last)
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    static func savedClaims(_ stateFile: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: stateFile))
        let state = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(state["id_token_claims"] as? [String: Any])
    }

    /// The query of the one `GET /authorize` the server received, in order, repeated names kept.
    static func authorizeQuery(_ server: LocalAuthorizationServer) throws -> [(String, String)] {
        let requests = server.requestLog.filter { $0.method == "GET" && $0.target.hasPrefix("/authorize?") }
        #expect(requests.count == 1)
        let target = try #require(requests.first?.target)
        let query = target.split(separator: "?", maxSplits: 1).last ?? ""
        let decode = { (text: Substring) in
            String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
        }
        return query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    @Test("custom, nested and list claims of the ID token are in --json's claims and in the saved state; no nonce")
    func claimsInJSON() async throws {
        try await LocalAuthorizationServer.withServer(
            .init(idTokenClaimOverrides: [
                "groups": #"["admins","staff"]"#, "roles": #"{"app":["reader","writer"],"level":3}"#,
                "tenant": #""acme""#,
            ])
        ) { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/state.json"
            let result = try await login(server, stateFile: stateFile, ["--json"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let output = try Self.json(result.stdout)
            let claims = try #require(output["claims"] as? [String: Any])
            #expect(claims["groups"] as? [String] == ["admins", "staff"])
            let roles = try #require(claims["roles"] as? [String: Any])
            #expect(roles["app"] as? [String] == ["reader", "writer"])
            #expect(roles["level"] as? Double == 3)
            #expect(claims["tenant"] as? String == "acme")
            #expect(claims["sub"] as? String == "alice")
            #expect(claims["nonce"] == nil, "the request's nonce is not shown")
            #expect(output["subject"] as? String == "alice", "the existing keys stay")
            let saved = try Self.savedClaims(stateFile)
            #expect(saved["groups"] as? [String] == ["admins", "staff"])
            #expect((saved["roles"] as? [String: Any])?["app"] as? [String] == ["reader", "writer"])
        }
    }

    @Test("every typed parameter reaches the server as sent; resource and --token-param reach the token endpoint")
    func parametersSent() async throws {
        var options = LocalAuthorizationServerOptions()
        options.acrValuesSupported = ["urn:silver"]
        try await LocalAuthorizationServer.withServer(options) { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/state.json"
            let result = try await login(
                server, stateFile: stateFile,
                [
                    "--prompt", "login,consent", "--login-hint", "alice@example.com", "--max-age", "600",
                    "--acr-values", "urn:gold urn:silver", "--ui-locales", "fr-CA en", "--resource",
                    "https://api.one.example/",
                    "--resource", "https://api.two.example/v1", "--param", "domain_hint=example.com",
                    "--token-param", "audience=billing", "--json",
                ])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let query = try Self.authorizeQuery(server)
            let value = { (name: String) in query.filter { $0.0 == name }.map(\.1) }
            #expect(value("prompt") == ["login consent"])
            #expect(value("login_hint") == ["alice@example.com"])
            #expect(value("max_age") == ["600"])
            #expect(value("acr_values") == ["urn:gold urn:silver"])
            #expect(value("ui_locales") == ["fr-CA en"])
            #expect(value("resource") == ["https://api.one.example/", "https://api.two.example/v1"])
            #expect(value("domain_hint") == ["example.com"])
            let exchange = try #require(server.tokenRequests.first { $0.grantType == "authorization_code" })
            #expect(exchange.values(of: "resource") == ["https://api.one.example/", "https://api.two.example/v1"])
            #expect(exchange.values(of: "audience") == ["billing"])
            #expect(exchange.values(of: "domain_hint").isEmpty, "an authorization extra stays out of the token request")
            let saved = try Self.savedClaims(stateFile)
            #expect(saved["acr"] as? String == "urn:silver")
            let authTime = try #require(saved["auth_time"] as? Double)
            #expect(abs(authTime - Date().timeIntervalSince1970) < 120)

            // eua refresh sends the resources and the extra token parameter again (RFC 8707 §2.2), as saved.
            let refresh = try await offThePool {
                try ProcessRunner.run(
                    try TestPaths.product("eua"), ["refresh", "--state-file", stateFile],
                    environment: Self.environment, timeout: 60)
            }
            #expect(refresh.status == 0, "stderr: \(refresh.stderr)")
            let refreshed = try #require(server.tokenRequests.first { $0.grantType == "refresh_token" })
            #expect(refreshed.values(of: "resource") == ["https://api.one.example/", "https://api.two.example/v1"])
            #expect(refreshed.values(of: "audience") == ["billing"])
            #expect(refreshed.values(of: "domain_hint").isEmpty)
            let file = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stateFile)))
                    as? [String: Any])
            let kept = try #require(file["refresh_parameters"] as? [[String: String]])
            #expect(kept.map { $0["name"] ?? "" } == ["resource", "resource", "audience"])
        }
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var claims: [String: String]
        var says: String
        var testDescription: String { says }
    }

    static let refusals: [Refusal] = [
        .init(
            arguments: ["--max-age", "300"], claims: ["auth_time": ""],
            says: "the ID token has no auth_time although max_age=300 was sent"),
        .init(
            arguments: ["--max-age", "300"], claims: ["auth_time": "1000000000"],
            says: "more than max_age=300 (+60 s skew) allows"),
        .init(
            arguments: ["--acr-values", "urn:silver"], claims: ["acr": #""urn:bronze""#],
            says: "the ID token's acr is 'urn:bronze', not one of those asked for (acr_values=urn:silver)"),
        .init(
            arguments: ["--acr-values", "urn:silver"], claims: ["acr": ""],
            says: "the ID token has no acr although acr_values=urn:silver was sent"),
    ]

    @Test(
        "an ID token that fails max_age or acr_values ends eua login with exit 1, the reason, and nothing saved",
        arguments: refusals)
    func refusedIDToken(_ refusal: Refusal) async throws {
        var options = LocalAuthorizationServerOptions(idTokenClaimOverrides: refusal.claims)
        options.acrValuesSupported = ["urn:silver", "urn:bronze"]
        try await LocalAuthorizationServer.withServer(options) { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/state.json"
            let result = try await login(server, stateFile: stateFile, refusal.arguments)
            #expect(result.status == 1, "stderr: \(result.stderr)")
            #expect(result.stderr.contains(refusal.says), "stderr: \(result.stderr)")
            #expect(
                server.tokenRequests.filter { $0.grantType == "authorization_code" }.count == 1,
                "the refusal came after the server issued the ID token")
            #expect(!FileManager.default.fileExists(atPath: stateFile), "nothing was saved")
        }
    }

    @Test("an acr not asked for is accepted when the server does not list the values asked for in acr_values_supported")
    func acrNotChecked() async throws {
        try await LocalAuthorizationServer.withServer(.init(idTokenClaimOverrides: ["acr": #""urn:bronze""#])) {
            server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/state.json"
            let result = try await login(server, stateFile: stateFile, ["--acr-values", "urn:silver"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(try Self.savedClaims(stateFile)["acr"] as? String == "urn:bronze")
        }
    }

    struct BadFlag: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var says: String
        var testDescription: String { says }
    }

    static let badFlags: [BadFlag] = [
        .init(arguments: ["--param", "state=mine"], says: "the extra authorization parameter 'state' is reserved"),
        .init(arguments: ["--param", "prompt=login"], says: "set the typed parameter prompt instead"),
        .init(arguments: ["--param", "noequals"], says: "--param 'noequals' is not name=value"),
        .init(
            arguments: ["--token-param", "code_verifier=x"],
            says: "the extra token parameter 'code_verifier' is reserved"),
        .init(arguments: ["--prompt", "none login"], says: "'none' cannot be sent with another prompt value"),
        .init(arguments: ["--prompt", "always"], says: "--prompt: 'always' is not a prompt value"),
        .init(arguments: ["--max-age=-5"], says: "max_age is -5; it must be a number of seconds from 0"),
        .init(
            arguments: ["--resource", "https://api.example/#part"], says: "has a fragment, which RFC 8707 §2 forbids"),
        .init(arguments: ["--resource", "api.example"], says: "the resource 'api.example' is not an absolute URI"),
    ]

    @Test("a bad request parameter is refused before any request reaches the server (exit 64)", arguments: badFlags)
    func badFlag(_ bad: BadFlag) async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let result = try await login(server, stateFile: folder.path + "/state.json", bad.arguments)
            #expect(result.status == 64, "stderr: \(result.stderr)")
            #expect(result.stderr.contains(bad.says), "stderr: \(result.stderr)")
            #expect(server.requestLog.isEmpty, "nothing was sent")
        }
    }

    @Test("[login] keys are sent; a flag replaces its key")
    func configurationKeys() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/state.json"
            let config = """
                [login]
                prompt = "consent"
                login-hint = "alice"
                max-age = 900
                acr-values = "urn:a"
                ui-locales = "nl"
                resource = ["https://api.example/", "urn:example:api"]
                """
            let result = try await login(server, stateFile: stateFile, ["--prompt", "select_account"], config: config)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let query = try Self.authorizeQuery(server)
            let value = { (name: String) in query.filter { $0.0 == name }.map(\.1) }
            #expect(value("prompt") == ["select_account"], "the flag replaces login.prompt")
            #expect(value("login_hint") == ["alice"])
            #expect(value("max_age") == ["900"])
            #expect(value("acr_values") == ["urn:a"])
            #expect(value("ui_locales") == ["nl"])
            #expect(value("resource") == ["https://api.example/", "urn:example:api"])
            let exchange = try #require(server.tokenRequests.first { $0.grantType == "authorization_code" })
            #expect(exchange.values(of: "resource") == ["https://api.example/", "urn:example:api"])
            #expect(try Self.savedClaims(stateFile)["auth_time"] != nil)
        }
    }

    @Test(
        "a bad [login] key is refused with file:line and the key, before any request",
        arguments: [
            (
                "[login]\nprompt = \"none consent\"\n",
                "config.toml:2: key 'login.prompt': login.prompt: 'none' cannot be sent"
            ),
            ("[login]\n\nmax-age = -1\n", "config.toml:3: key 'login.max-age': expected a whole number of seconds"),
            ("[login]\nresource = [\"https://a.example/#x\"]\n", "config.toml:2: key 'login.resource': the resource"),
            (
                "[login]\nresource = \"https://a.example/\"\n",
                "config.toml:2: key 'login.resource': expected an array of strings"
            ),
        ])
    func badConfigurationKey(_ config: String, _ says: String) async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/state.json"
            let result = try await login(server, stateFile: stateFile, [], config: config)
            #expect(result.status == 1, "stderr: \(result.stderr)")
            #expect(result.stderr.contains(says), "stderr: \(result.stderr)")
            #expect(server.requestLog.isEmpty, "nothing was sent")
            #expect(!FileManager.default.fileExists(atPath: stateFile))
        }
    }
}
