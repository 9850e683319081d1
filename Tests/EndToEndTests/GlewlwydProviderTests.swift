// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import Foundation
import Testing

/// The unmodified `eua` against Glewlwyd (Debian's `glewlwyd`, a C provider nobody here wrote) with the
/// system-browser agent, whose browser is the stand-in for Glewlwyd's JavaScript login page: pushed authorization
/// requests, DPoP-bound tokens, revocation, a refused push and dynamic registration. Each test asserts on what the
/// provider stored (its SQLite database, its introspection endpoint), not only on what `eua` printed.
@Suite("Glewlwyd: PAR, DPoP, revocation, refusals", .onOwnThreads)
struct GlewlwydProviderTests {
    static let password = "correct horse battery"
    static let secret = "glewlwyd-s3cret"

    /// A provider with alice, an isolated desktop (no default browser, so the agent opens `$BROWSER`), and `eua`.
    struct Setup {
        let provider: GlewlwydProvider
        let folder: TemporaryFolder
        let desktop: IsolatedDesktop
        /// A loopback redirect URI on a port free a moment ago (Glewlwyd compares redirect URIs exactly).
        let redirectURI: String
        var stateFile: String { folder.path + "/state.json" }

        init(parRequired: Bool = false) async throws {
            provider = try await GlewlwydProvider.start(parRequired: parRequired)
            try provider.addUser(
                "alice", password: GlewlwydProviderTests.password, name: "Alice Example",
                email: "alice@example.com")
            folder = try TemporaryFolder()
            desktop = try IsolatedDesktop(registerHandler: false)
            redirectURI = "http://127.0.0.1:\(try OIDCProviderMock.freePort())/callback"
        }

        func eua(_ arguments: [String]) async throws -> ProcessResult {
            let executable = try TestPaths.product("eua")
            let environment = desktop.environment(
                provider.browserEnvironment(
                    username: "alice",
                    password: GlewlwydProviderTests.password
                )
                .merging(["EUA_CLIENT_SECRET": ""]) { $1 })
            return try await offThePool {
                try ProcessRunner.run(executable, arguments, environment: environment, timeout: 120)
            }
        }

        /// The client secret in a 0600 file.
        func secretFile() throws -> String {
            let path = folder.path + "/client-secret"
            try (GlewlwydProviderTests.secret + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
            return path
        }

        /// `eua login` through the system-browser agent (the stand-in browser signs alice in and grants).
        func login(_ extra: [String]) async throws -> ProcessResult {
            try await eua(
                [
                    "login", "--issuer", provider.issuer, "--scope", "openid profile email",
                    "--agent", "system-browser", "--timeout", "60", "--state-file", stateFile,
                ] + extra)
        }
    }

    static func lastJSON(_ output: String) throws -> [String: Any] {
        let line = try #require(output.split(separator: "\n").last)
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// The claims of a JWT (Glewlwyd's access tokens are JWTs, RFC 9068), unverified: only to read what it says.
    static func claims(ofJWT token: String) throws -> [String: Any] {
        let parts = token.split(separator: ".")
        try #require(parts.count == 3, "a JWS has three parts")
        var text = String(parts[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        let data = try #require(Data(base64Encoded: text))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test(
        "confidential client, PAR + DPoP: the provider marked the push used, stored the key's jkt on the refresh token and in the access token; refresh is proven; a revoked refresh token is inactive"
    )
    func pushedAndBound() async throws {
        let setup = try await Setup()
        defer { setup.provider.stop() }
        try setup.provider.addClient("web-app", secret: Self.secret, redirectURIs: [setup.redirectURI])
        let secretFile = try setup.secretFile()
        let login = try await setup.login([
            "--client-id", "web-app", "--client-secret-file", secretFile,
            "--redirect-uri", setup.redirectURI, "--dpop", "--json",
        ])
        try #require(login.status == 0, "stderr: \(login.stderr)")
        let output = try Self.lastJSON(login.stdout)
        #expect(output["token_type"] as? String == "DPoP")
        #expect(
            output["par"] as? Bool == true && output["dpop"] as? Bool == true, "eua login --json says both were used")
        #expect(output["preferred_username"] as? String == "alice" || output["subject"] != nil)

        let records = try setup.provider.records()
        let push = try #require(records.par.first)
        #expect(records.par.count == 1 && push.client_id == "web-app" && push.redirect_uri == setup.redirectURI)
        #expect(push.status == 2, "the provider marked the pushed request completed (used to issue the code)")
        #expect(push.username == "alice" && push.has_code_challenge == 1)
        let jkt = try #require(push.jkt, "the push carried dpop_jkt and the provider stored it")
        #expect(
            records.codes.count == 1 && records.codes.first?.jkt == jkt && records.codes.first?.enabled == 0,
            "the code was bound to the key and used once")
        let refresh = try #require(records.refresh_tokens.first)
        #expect(
            records.refresh_tokens.count == 1 && refresh.jkt == jkt && refresh.enabled == 1
                && refresh.username == "alice",
            "the refresh token is bound to the same key")
        let proofs = records.dpop_proofs.filter { $0.htu.hasSuffix("/api/oidc/token") }
        #expect(
            proofs.count == 1 && proofs.allSatisfy { $0.jkt == jkt && $0.htm == "POST" && $0.client_id == "web-app" },
            "one proof at the token endpoint, with that key: \(records.dpop_proofs)")
        let accessToken = try #require(output["access_token"] as? String)
        let cnf = try #require(try Self.claims(ofJWT: accessToken)["cnf"] as? [String: Any])
        #expect(cnf["jkt"] as? String == jkt, "the access token the provider issued names the key it stored")

        // The browser got only client_id and request_uri: the request itself was pushed.
        let browsed = try setup.provider.browserRequests()
        let first = try #require(browsed.first)
        #expect(first.path == "/api/oidc/auth" && first.query == ["client_id", "request_uri"], "\(browsed)")
        #expect(browsed.last.map { $0.path == "/callback" && $0.status == 200 } == true, "handed to eua's receiver")

        // The refresh proves the same key (a second accepted proof, at the token endpoint).
        let refreshed = try await setup.eua([
            "refresh", "--state-file", setup.stateFile, "--client-secret-file",
            secretFile, "--json",
        ])
        try #require(refreshed.status == 0, "stderr: \(refreshed.stderr)")
        let afterRefresh = try setup.provider.records()
        #expect(afterRefresh.dpop_proofs.filter { $0.htu.hasSuffix("/api/oidc/token") && $0.jkt == jkt }.count == 2)
        let current = try #require(
            try Self.lastJSON(refreshed.stdout)["refresh_token"] as? String
                ?? output["refresh_token"] as? String)
        let live = try setup.provider.introspect(token: current, clientID: "web-app", secret: Self.secret)
        #expect(live["active"] as? Bool == true, "\(live)")

        // Revoked by eua logout (without the end-session step): the provider reports it inactive.
        let logout = try await setup.eua([
            "logout", "--state-file", setup.stateFile, "--client-secret-file", secretFile,
            "--no-end-session",
        ])
        #expect(logout.status == 0, "stderr: \(logout.stderr)")
        let revoked = try setup.provider.introspect(token: current, clientID: "web-app", secret: Self.secret)
        #expect(
            revoked["active"] as? Bool == false, "the provider reports the revoked refresh token inactive: \(revoked)")
        #expect(try setup.provider.records().refresh_tokens.allSatisfy { $0.enabled == 0 })
    }

    @Test("PAR required, public client: the pushed request is used and the tokens are issued without DPoP")
    func requiredPublic() async throws {
        let setup = try await Setup(parRequired: true)
        defer { setup.provider.stop() }
        try setup.provider.addClient("native-app", redirectURIs: [setup.redirectURI])
        let login = try await setup.login(["--client-id", "native-app", "--redirect-uri", setup.redirectURI, "--json"])
        #expect(login.status == 0, "stderr: \(login.stderr)")
        let output = try Self.lastJSON(login.stdout)
        #expect(output["name"] as? String == "Alice Example", "\(login.stdout)")
        #expect(output["par"] as? Bool == true && output["dpop"] as? Bool == false)
        let records = try setup.provider.records()
        #expect(records.par.count == 1 && records.par.first?.status == 2 && records.par.first?.jkt == nil)
        #expect(records.refresh_tokens.count == 1 && records.refresh_tokens.first?.jkt == nil)
    }

    @Test(
        "a push the provider refuses (a redirect URI it does not know): the sign-in ends at once with its status, no browser, no waiting line"
    )
    func refusedPush() async throws {
        let setup = try await Setup()
        defer { setup.provider.stop() }
        try setup.provider.addClient("native-app", redirectURIs: [setup.redirectURI])
        let unknown = "http://127.0.0.1:\(try OIDCProviderMock.freePort())/elsewhere"
        let started = Date()
        let login = try await setup.login(["--client-id", "native-app", "--redirect-uri", unknown])
        #expect(Date().timeIntervalSince(started) < 30, "not the 60 s timeout")
        #expect(login.status == 1, "stderr: \(login.stderr)")
        #expect(
            login.stderr.contains(
                "pushed authorization request endpoint \(setup.provider.issuer)/par answered HTTP 403"),
            "stderr: \(login.stderr)")
        #expect(login.stderr.contains("nothing was opened in a browser"), "stderr: \(login.stderr)")
        #expect(!login.stderr.contains("Waiting for the sign-in"), "stderr: \(login.stderr)")
        #expect(try setup.provider.browserRequests().isEmpty, "no browser was opened")
        #expect(try setup.provider.records().par.isEmpty, "the provider stored no pushed request")
        #expect(!FileManager.default.fileExists(atPath: setup.stateFile))
    }

    @Test(
        "a push refused for a wrong client secret (Glewlwyd: 403, no body): the sign-in ends with the status, no browser"
    )
    func refusedPushWrongSecret() async throws {
        let setup = try await Setup()
        defer { setup.provider.stop() }
        try setup.provider.addClient("web-app", secret: Self.secret, redirectURIs: [setup.redirectURI])
        let path = setup.folder.path + "/wrong-secret"
        try "not-the-secret\n".write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        let login = try await setup.login([
            "--client-id", "web-app", "--client-secret-file", path,
            "--redirect-uri", setup.redirectURI,
        ])
        #expect(login.status == 1, "stderr: \(login.stderr)")
        #expect(login.stderr.contains("\(setup.provider.issuer)/par answered HTTP 403"), "stderr: \(login.stderr)")
        #expect(!login.stderr.contains("Waiting for the sign-in"), "stderr: \(login.stderr)")
        #expect(try setup.provider.browserRequests().isEmpty, "no browser was opened")
        #expect(try setup.provider.records().par.isEmpty)
    }

    @Test(
        "eua register, then eua login with the same redirect URI (port and path in it): signed in as the registered client"
    )
    func registerThenLogin() async throws {
        let setup = try await Setup()
        defer { setup.provider.stop() }
        let register = try await setup.eua([
            "register", "--issuer", setup.provider.issuer, "--redirect-uri", setup.redirectURI,
            "--client-auth", "client_secret_basic", "--state-file", setup.stateFile,
        ])
        try #require(register.status == 0, "stderr: \(register.stderr)")
        let registered = try setup.provider.records().registered_clients
        let clientID = try #require(registered.first)
        #expect(registered.count == 1)
        let login = try await setup.login(["--redirect-uri", setup.redirectURI, "--json"])
        #expect(login.status == 0, "stderr: \(login.stderr)")
        #expect(try Self.lastJSON(login.stdout)["client_auth"] as? String == "client_secret_basic")
        let records = try setup.provider.records()
        #expect(
            records.par.count == 1 && records.par.first?.client_id == clientID && records.par.first?.status == 2
                && records.par.first?.redirect_uri == setup.redirectURI)
        #expect(records.refresh_tokens.first?.client_id == clientID)
    }
}
