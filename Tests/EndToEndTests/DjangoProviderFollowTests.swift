// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentTesting
import Foundation
import Testing

/// `eua login` with the headless agent in follow mode — the built binary, unmodified — against providers'
/// own pages (django-oauth-toolkit 3.4.1, and the local server): what the provider says reaches the user's
/// terminal, credentials are never posted twice, and the consent page is answered by the button rule (no
/// `form.allow` option). Asserts on what the provider recorded.
@Suite("eua login in follow mode against a provider's pages", .onOwnThreads)
struct DjangoProviderFollowTests {
    static let environment = ["EUA_ALLOW_TEST_AGENTS": "1", "EUA_CLIENT_SECRET": ""]
    static let password = "correct horse battery"

    func eua(_ arguments: [String], environment: [String: String] = [:]) async throws -> ProcessResult {
        let executable = try TestPaths.product("eua")
        return try await offThePool {
            try ProcessRunner.run(
                executable, arguments, environment: Self.environment.merging(environment) { $1 }, timeout: 90)
        }
    }

    /// A provider with alice and the public client `native-app` registered for `redirectURI`, with its consent page.
    static func provider(redirectURI: String = "http://127.0.0.1/callback") async throws -> DjangoProvider {
        let provider = try await DjangoProvider.start()
        try provider.addUser("alice", password: password, name: "Alice Example", email: "alice@example.com")
        try provider.addApplication(clientID: "native-app", redirectURIs: [redirectURI])
        return provider
    }

    /// `eua login` in follow mode with a redirect path of `/callback` (`[receiver] path`, in a config of its own).
    func login(
        _ provider: DjangoProvider, folder: TemporaryFolder, clientID: String = "native-app",
        password: String = DjangoProviderFollowTests.password
    ) async throws -> ProcessResult {
        let config = try folder.folder("config/eua")
        try "[receiver]\npath = \"/callback\"\n".write(
            to: config.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
        return try await eua(
            [
                "login", "--issuer", provider.issuer, "--client-id", clientID, "--scope", "openid profile email",
                "--agent", "headless", "--agent-option", "mode=follow", "--agent-option", "form.username=alice",
                "--agent-option", "form.password=\(password)", "--timeout", "60",
                "--state-file", folder.path + "/state.json",
            ],
            environment: ["XDG_CONFIG_HOME": folder.path + "/config"])
    }

    @Test("the right password: login page and consent page answered (Authorize pressed by the rule); alice signed in")
    func signsIn() async throws {
        let provider = try await Self.provider()
        let folder = try TemporaryFolder()
        let result = try await login(provider, folder: folder)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.path + "/state.json"))
        let records = try provider.records()
        #expect(records.access_tokens.count == 1 && records.access_tokens.first?.user == "alice")
        #expect(records.grants.isEmpty, "the code was spent")
        let log = try provider.requestLog()
        let credentialPosts = log.filter { $0.method == "POST" && $0.path == "/accounts/login/" }
        #expect(credentialPosts.count == 1 && credentialPosts.first?.username == "alice")
        let consent = log.filter { $0.method == "POST" && $0.path == "/o/authorize/" }
        #expect(consent.count == 1, "the consent form was posted once")
        #expect(
            consent.first?.form.contains("allow") == true, "the Authorize button (name=allow) was pressed: \(consent)")
        #expect(
            consent.first?.form.contains("password") == false && consent.first?.form.contains("username") == false,
            "credentials go only to the login form")
        #expect(!result.stderr.contains(Self.password) && !result.stdout.contains(Self.password))
    }

    @Test(
        "a wrong password: exactly one POST of the credentials, eua login exits 1 with the provider's own words, nothing saved"
    )
    func wrongPassword() async throws {
        let provider = try await Self.provider()
        let folder = try TemporaryFolder()
        let result = try await login(provider, folder: folder, password: "not the password")
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("the provider refused the credentials"), "stderr: \(result.stderr)")
        #expect(
            result.stderr.contains(
                "\"Please enter a correct username and password. Note that both fields may be case-sensitive.\""),
            "the provider's own error text: \(result.stderr)")
        #expect(!result.stderr.contains("not the password"), "the password is never printed")
        let credentialPosts = try provider.requestLog().filter { $0.method == "POST" && $0.path == "/accounts/login/" }
        #expect(credentialPosts.count == 1, "the credentials were posted exactly once: \(credentialPosts.count)")
        let records = try provider.records()
        #expect(records.grants.isEmpty && records.access_tokens.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/state.json"), "nothing was saved")
    }

    @Test(
        "a registered redirect URI that is not the one sent: the provider's own 'Mismatching redirect URI' reaches the user"
    )
    func wrongRedirectURI() async throws {
        let provider = try await Self.provider(redirectURI: "http://127.0.0.1/registered-elsewhere")
        let folder = try TemporaryFolder()
        let started = Date()
        let result = try await login(provider, folder: folder)
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(
            result.stderr.contains(
                "the provider answered HTTP 400 at \(provider.issuer)/authorize/: \"Error: invalid_request Mismatching redirect URI.\""
            ),
            "stderr: \(result.stderr)")
        #expect(Date().timeIntervalSince(started) < 45, "the provider's answer ended the flow, not the 60 s timeout")
        #expect(try provider.records().grants.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/state.json"), "nothing was saved")
    }

    @Test("an unknown client id: the provider's own 'Invalid client_id parameter value.' reaches the user")
    func unknownClient() async throws {
        let provider = try await Self.provider()
        let folder = try TemporaryFolder()
        let result = try await login(provider, folder: folder, clientID: "nobody-registered-this")
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(
            result.stderr.contains("\"Error: invalid_request Invalid client_id parameter value.\""),
            "stderr: \(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/state.json"))
    }

    @Test("the local server's 400 page for an unknown client reaches eua login's stderr at once, not a timeout")
    func localErrorPage() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/state.json"
            let started = Date()
            let result = try await eua([
                "login", "--issuer", server.issuer, "--client-id", "nobody-registered-this",
                "--agent", "headless", "--agent-option", "mode=follow", "--timeout", "60",
                "--state-file", stateFile,
            ])
            #expect(result.status == 1, "stderr: \(result.stderr)")
            #expect(
                result.stderr.contains(
                    "the provider answered HTTP 400 at \(server.issuer)/authorize: \"unknown client_id 'nobody-registered-this'\""
                ),
                "stderr: \(result.stderr)")
            #expect(Date().timeIntervalSince(started) < 30, "the error ended the flow, the 60 s timeout did not")
            #expect(!FileManager.default.fileExists(atPath: stateFile), "nothing was saved")
        }
    }
}
