// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import Foundation
import Testing

/// The unmodified `eua` against django-oauth-toolkit, a provider nobody here wrote: the registered redirect
/// URI, public and confidential clients, rotating refresh tokens and the device grant without an ID token.
/// Each test asserts on what the provider recorded (its database and request log), not only on what `eua` printed.
@Suite("django-oauth-toolkit: eua login and eua refresh", .onOwnThreads)
struct DjangoProviderLoginTests {
    static let password = "correct horse battery"

    /// A provider with alice, and `eua` run against it.
    struct Setup {
        let provider: DjangoProvider
        let folder: TemporaryFolder
        var stateFile: String { folder.path + "/state.json" }

        init(device: Bool = false) async throws {
            provider = try await DjangoProvider.start(device: device)
            try provider.addUser(
                "alice", password: DjangoProviderLoginTests.password, name: "Alice Example",
                email: "alice@example.com")
            folder = try TemporaryFolder()
        }

        func eua(_ arguments: [String], environment: [String: String] = [:]) async throws -> ProcessResult {
            let executable = try TestPaths.product("eua")
            let merged = ["XDG_CONFIG_HOME": folder.path + "/no-config", "EUA_CLIENT_SECRET": ""].merging(environment) {
                $1
            }
            return try await offThePool {
                try ProcessRunner.run(executable, arguments, environment: merged, timeout: 120)
            }
        }

        /// `eua login` through the provider's login and consent pages with the headless agent in follow mode.
        func login(clientID: String, _ extra: [String], environment: [String: String] = [:]) async throws
            -> ProcessResult
        {
            try await eua(
                [
                    "login", "--issuer", provider.issuer, "--client-id", clientID, "--scope", "openid profile email",
                    "--agent", "headless", "--allow-test-agents", "--agent-option", "mode=follow",
                    "--agent-option", "form.username=alice",
                    "--agent-option", "form.password=\(DjangoProviderLoginTests.password)",
                    "--agent-option", "form.allow=Authorize",
                    "--timeout", "60", "--state-file", stateFile,
                ] + extra, environment: environment)
        }

        /// The `redirect_uri` the provider saw in the authorization request and in the token request.
        func sentRedirectURIs() throws -> (authorization: String, token: String) {
            let log = try provider.requestLog()
            let authorize = try #require(log.first { $0.path == "/o/authorize/" && $0.method == "GET" })
            let exchange = try #require(log.first { $0.path == "/o/token/" && $0.method == "POST" })
            return (try #require(authorize.redirect_uri), try #require(exchange.redirect_uri))
        }
    }

    static func lastJSON(_ output: String) throws -> [String: Any] {
        let line = try #require(output.split(separator: "\n").last)
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    static func secretFile(in folder: TemporaryFolder, _ secret: String) throws -> String {
        let path = folder.path + "/client-secret"
        try (secret + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return path
    }

    @Test("public client + PKCE, registered http://127.0.0.1/callback used with a free port; plain output names Alice")
    func publicClient() async throws {
        let setup = try await Setup()
        defer { setup.provider.stop() }
        try setup.provider.addApplication(clientID: "native-app", redirectURIs: ["http://127.0.0.1/callback"])
        let result = try await setup.login(clientID: "native-app", ["--redirect-uri", "http://127.0.0.1/callback"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(
            result.stdout.contains("Signed in as Alice Example (alice) at \(setup.provider.issuer)."),
            "\(result.stdout)")

        let (authorization, token) = try setup.sentRedirectURIs()
        #expect(authorization.hasPrefix("http://127.0.0.1:") && authorization.hasSuffix("/callback"))
        #expect(token == authorization, "byte for byte")
        let records = try setup.provider.records()
        #expect(records.grants.isEmpty || records.grants.allSatisfy { $0.code_challenge_method == "S256" })
        let issued = try #require(records.access_tokens.first)
        #expect(
            records.access_tokens.count == 1 && issued.user == "alice" && issued.client_id == "native-app"
                && issued.has_id_token)
        let posts = try setup.provider.requestLog().filter { $0.method == "POST" && $0.path == "/accounts/login/" }
        #expect(posts.count == 1 && posts.first?.username == "alice", "the credentials are posted once")
    }

    @Test("registered http://localhost/callback used with a free port: the same text in both requests, one warning")
    func localhostRedirect() async throws {
        let setup = try await Setup()
        defer { setup.provider.stop() }
        try setup.provider.addApplication(clientID: "native-app", redirectURIs: ["http://localhost/callback"])
        let result = try await setup.login(clientID: "native-app", ["--redirect-uri", "http://localhost/callback"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.components(separatedBy: "RFC 8252 §8.3").count == 2, "one warning: \(result.stderr)")
        let (authorization, token) = try setup.sentRedirectURIs()
        #expect(
            authorization.hasPrefix("http://localhost:") && authorization.hasSuffix("/callback")
                && token == authorization)
        #expect(try setup.provider.records().access_tokens.first?.user == "alice")
    }

    @Test("confidential client, client_secret_basic (chosen from discovery): the secret from a 0600 file, never saved")
    func confidentialBasic() async throws {
        let setup = try await Setup()
        defer { setup.provider.stop() }
        try setup.provider.addApplication(
            clientID: "web-app", secret: "dot-s3cret", redirectURIs: ["http://127.0.0.1/callback"])
        let path = try Self.secretFile(in: setup.folder, "dot-s3cret")
        let result = try await setup.login(
            clientID: "web-app",
            [
                "--redirect-uri", "http://127.0.0.1/callback",
                "--client-secret-file", path, "--json",
            ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(try Self.lastJSON(result.stdout)["client_auth"] as? String == "client_secret_basic")
        let exchange = try #require(
            try setup.provider.requestLog().first { $0.path == "/o/token/" && $0.method == "POST" })
        #expect(exchange.status == 200 && exchange.authorization == "Basic" && !exchange.form.contains("client_secret"))
        #expect(try setup.provider.records().access_tokens.first?.client_id == "web-app")
        let saved = try String(contentsOfFile: setup.stateFile, encoding: .utf8)
        #expect(!saved.contains("dot-s3cret") && saved.contains("\"confidential\" : true"))
    }

    @Test("confidential client, client_secret_post: the secret in the body; refresh without it says how, sends nothing")
    func confidentialPost() async throws {
        let setup = try await Setup()
        defer { setup.provider.stop() }
        try setup.provider.addApplication(
            clientID: "web-app", secret: "dot-s3cret", redirectURIs: ["http://127.0.0.1/callback"])
        let path = try Self.secretFile(in: setup.folder, "dot-s3cret")
        let result = try await setup.login(
            clientID: "web-app",
            [
                "--redirect-uri", "http://127.0.0.1/callback",
                "--client-auth", "client_secret_post",
            ],
            environment: ["EUA_CLIENT_SECRET": "dot-s3cret"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let exchange = try #require(
            try setup.provider.requestLog().first { $0.path == "/o/token/" && $0.method == "POST" })
        #expect(exchange.status == 200 && exchange.authorization.isEmpty && exchange.form.contains("client_secret"))

        let before = try String(contentsOfFile: setup.stateFile, encoding: .utf8)
        let tokenPosts = try setup.provider.requestLog().filter { $0.path == "/o/token/" }.count
        let refresh = try await setup.eua(["refresh", "--state-file", setup.stateFile])
        #expect(refresh.status == 1)
        #expect(
            refresh.stderr.contains("confidential client (client_secret_post)")
                && refresh.stderr.contains("--client-secret-file"), "stderr: \(refresh.stderr)")
        #expect(
            try setup.provider.requestLog().filter { $0.path == "/o/token/" }.count == tokenPosts, "nothing was sent")
        #expect(try String(contentsOfFile: setup.stateFile, encoding: .utf8) == before, "nothing was lost")

        let withSecret = try await setup.eua(["refresh", "--state-file", setup.stateFile, "--client-secret-file", path])
        #expect(withSecret.status == 0, "stderr: \(withSecret.stderr)")
    }

    @Test("eua refresh with rotating refresh tokens: a new refresh token, and the provider revoked the old one")
    func rotatingRefresh() async throws {
        let setup = try await Setup()
        defer { setup.provider.stop() }
        try setup.provider.addApplication(clientID: "native-app", redirectURIs: ["http://127.0.0.1/callback"])
        let login = try await setup.login(
            clientID: "native-app", ["--redirect-uri", "http://127.0.0.1/callback", "--json"])
        #expect(login.status == 0, "stderr: \(login.stderr)")
        let first = try #require(try Self.lastJSON(login.stdout)["refresh_token"] as? String)

        let refresh = try await setup.eua(["refresh", "--state-file", setup.stateFile, "--json"])
        #expect(refresh.status == 0, "stderr: \(refresh.stderr)")
        let second = try #require(try Self.lastJSON(refresh.stdout)["refresh_token"] as? String)
        #expect(second != first)
        let tokens = try setup.provider.records().refresh_tokens
        #expect(tokens.first { $0.token == first }?.revoked != nil, "the provider revoked the old refresh token")
        #expect(tokens.first { $0.token == second }?.revoked == nil)

        let again = try await setup.eua(["refresh", "--state-file", setup.stateFile, "--json"])
        #expect(again.status == 0, "the saved (rotated) refresh token works: \(again.stderr)")
    }

    @Test("device grant (no ID token from the provider): accepted; who signed in comes from UserInfo")
    func deviceGrant() async throws {
        let setup = try await Setup(device: true)
        defer { setup.provider.stop() }
        try setup.provider.addApplication(clientID: "tv-app", grant: .device)
        let provider = setup.provider
        let approver = Task {
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                if let pending = try provider.records().device_grants.first(where: { $0.status != "authorized" }) {
                    try provider.approveDevice(userCode: pending.user_code, username: "alice")
                    return true
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            return false
        }
        let result = try await setup.eua([
            "login", "--issuer", provider.issuer, "--client-id", "tv-app",
            "--scope", "openid profile email", "--flow", "device", "--timeout", "60",
            "--state-file", setup.stateFile,
        ])
        #expect(try await approver.value, "the test found the user code and approved it")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let records = try provider.records()
        #expect(records.device_grants.first?.status == "authorized")
        let issued = try #require(records.access_tokens.first)
        #expect(issued.user == "alice" && !issued.has_id_token, "the provider issued no ID token in the device grant")
        let userinfo = try provider.requestLog().filter { $0.path == "/o/userinfo/" }
        #expect(userinfo.count == 1 && userinfo.first?.authorization == "Bearer" && userinfo.first?.status == 200)
        #expect(result.stdout.contains("Signed in as Alice Example (alice) at \(provider.issuer)."), "\(result.stdout)")
        #expect(FileManager.default.fileExists(atPath: setup.stateFile))
    }
}
