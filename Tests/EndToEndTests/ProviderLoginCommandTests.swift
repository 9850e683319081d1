// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentTesting
import Foundation
import Testing

/// The built `eua` with what a real provider asks for: the registered redirect URI, a confidential client's
/// secret from a file, one deadline, and who signed in — against the testing kit's local server, asserting
/// what the server recorded and what was (not) saved.
@Suite("eua login and refresh for real providers", .onOwnThreads)
struct ProviderLoginCommandTests {
    static let environment = ["EUA_ALLOW_TEST_AGENTS": "1", "EUA_CLIENT_SECRET": "", "XDG_CONFIG_HOME": "/nonexistent"]

    func eua(_ arguments: [String], environment: [String: String] = [:]) async throws -> ProcessResult {
        let executable = try TestPaths.product("eua")
        let merged = Self.environment.merging(environment) { $1 }
        return try await offThePool { try ProcessRunner.run(executable, arguments, environment: merged, timeout: 90) }
    }

    func login(
        _ issuer: String, clientID: String, stateFile: String, _ extra: [String],
        environment: [String: String] = [:]
    ) async throws -> ProcessResult {
        try await eua(
            [
                "login", "--issuer", issuer, "--client-id", clientID, "--scope", "openid email",
                "--agent", "headless", "--agent-option", "mode=follow", "--timeout", "30",
                "--state-file", stateFile,
            ] + extra, environment: environment)
    }

    static func lastJSON(_ output: String) throws -> [String: Any] {
        let line = try #require(output.split(separator: "\n").last)
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    static func secretFile(_ folder: TemporaryFolder, _ secret: String, mode: Int) throws -> String {
        let path = folder.path + "/client-secret"
        try (secret + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    @Test(
        "--redirect-uri http://127.0.0.1/callback: the authorization and token requests carry the same text; plain output says who"
    )
    func registeredRedirectURI() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let result = try await login(
                server.issuer, clientID: server.options.clientID, stateFile: folder.path + "/s.json",
                ["--redirect-uri", "http://127.0.0.1/callback"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let authorization = try #require(server.authorizationRequests.first?["redirect_uri"])
            #expect(authorization.hasPrefix("http://127.0.0.1:") && authorization.hasSuffix("/callback"))
            #expect(server.tokenRequests.first?.redirectURI == authorization)
            #expect(result.stdout.contains("Signed in as alice at \(server.issuer)."))
        }
    }

    @Test("--redirect-uri http://localhost/callback works and warns once about RFC 8252 §8.3")
    func localhostWarnsOnce() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let result = try await login(
                server.issuer, clientID: server.options.clientID, stateFile: folder.path + "/s.json",
                ["--redirect-uri", "http://localhost/callback"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stderr.components(separatedBy: "RFC 8252 §8.3").count == 2, "one warning: \(result.stderr)")
            let authorization = try #require(server.authorizationRequests.first?["redirect_uri"])
            #expect(
                authorization.hasPrefix("http://localhost:") && server.tokenRequests.first?.redirectURI == authorization
            )
        }
    }

    @Test(
        "a bad --redirect-uri, or one with a port and --port, is a usage error; nothing is sent or saved",
        arguments: [
            (["--redirect-uri", "https://127.0.0.1/cb"], "it is https"),
            (["--redirect-uri", "http://127.0.0.1/cb#top"], "fragment"),
            (["--redirect-uri", "http://me@127.0.0.1/cb"], "userinfo"),
            (["--redirect-uri", "http://192.168.1.5/cb"], "not a loopback host"),
            (["--redirect-uri", "http://127.0.0.1:8400/cb", "--port", "8401"], "give no --port or --port-range"),
            (["--client-secret", "a", "--client-secret-file", "/dev/null"], "not both"),
            (["--timeout", "0"], "--timeout must be a number of seconds from 1 to 86400"),
            (["--timeout", "86401"], "--timeout must be a number of seconds from 1 to 86400"),
        ])
    func usageErrors(_ extra: [String], _ says: String) async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let result = try await login(
                server.issuer, clientID: server.options.clientID, stateFile: folder.path + "/s.json", extra)
            #expect(result.status != 0)
            #expect(result.stderr.contains(says), "stderr: \(result.stderr)")
            #expect(server.requestLog.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: folder.path + "/s.json"))
        }
    }

    @Test("a bad [login] redirect-uri in the user's file: exit 1 with file:line and the key; nothing sent")
    func badConfigurationFile() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            try FileManager.default.createDirectory(
                atPath: folder.path + "/config/eua", withIntermediateDirectories: true)
            let config = folder.path + "/config/eua/config.toml"
            try "[login]\nredirect-uri = \"http://10.0.0.1/cb\"\n".write(
                toFile: config, atomically: true, encoding: .utf8)
            let result = try await login(
                server.issuer, clientID: server.options.clientID, stateFile: folder.path + "/s.json", [],
                environment: ["XDG_CONFIG_HOME": folder.path + "/config"])
            #expect(result.status == 1)
            #expect(
                result.stderr.contains("\(config):2") && result.stderr.contains("login.redirect-uri")
                    && result.stderr.contains("not a loopback host"), "stderr: \(result.stderr)")
            #expect(server.requestLog.isEmpty)
        }
    }

    @Test("--client-secret-file readable by others is refused with chmod advice; nothing is sent or saved")
    func secretFileTooOpen() async throws {
        try await LocalAuthorizationServer.withServer(.init(clientSecret: "s3cret")) { server in
            let folder = try TemporaryFolder()
            let path = try Self.secretFile(folder, "s3cret", mode: 0o644)
            let result = try await login(
                server.issuer, clientID: server.options.clientID, stateFile: folder.path + "/s.json",
                ["--client-secret-file", path])
            #expect(result.status == 1)
            #expect(
                result.stderr.contains("--client-secret-file \(path)") && result.stderr.contains("chmod 600"),
                "stderr: \(result.stderr)")
            #expect(!result.stderr.contains("s3cret"))
            #expect(server.requestLog.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: folder.path + "/s.json"))
        }
    }

    @Test(
        "a client secret file that is not one secret is refused, saying what is wrong; nothing is sent",
        arguments: [
            ("", "it is empty"),
            ("line one\nline two", "it holds more than one line"),
            ("s3cret\u{1B}[2J", "it holds a control character"),
            (String(repeating: "x", count: 5000), "it is larger than 4096 bytes"),
        ])
    func badSecretFile(_ contents: String, _ says: String) async throws {
        try await LocalAuthorizationServer.withServer(.init(clientSecret: "s3cret")) { server in
            let folder = try TemporaryFolder()
            let path = folder.path + "/client-secret"
            try contents.write(toFile: path, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
            let result = try await login(
                server.issuer, clientID: server.options.clientID, stateFile: folder.path + "/s.json",
                ["--client-secret-file", path])
            #expect(result.status == 1)
            #expect(result.stderr.contains("--client-secret-file \(path): \(says)"), "stderr: \(result.stderr)")
            #expect(server.requestLog.isEmpty)
        }
    }

    @Test("a client secret file that is missing or a folder is refused, naming it")
    func missingSecretFile() async throws {
        let folder = try TemporaryFolder()
        for (path, says) in [(folder.path + "/none", "it cannot be opened"), (folder.path, "it is not a regular file")]
        {
            let result = try await login(
                "http://127.0.0.1:1", clientID: "c", stateFile: folder.path + "/s.json",
                ["--client-secret-file", path])
            #expect(result.status == 1)
            #expect(result.stderr.contains("--client-secret-file \(path): \(says)"), "stderr: \(result.stderr)")
        }
    }

    @Test("confidential client: the secret from a 0600 file; refresh without it says what is missing and loses nothing")
    func confidentialClientAndRefresh() async throws {
        try await LocalAuthorizationServer.withServer(.init(clientSecret: "s3cret")) { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            let path = try Self.secretFile(folder, "s3cret", mode: 0o600)
            let result = try await login(
                server.issuer, clientID: server.options.clientID, stateFile: stateFile,
                ["--client-secret-file", path, "--json"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(try Self.lastJSON(result.stdout)["client_auth"] as? String == "client_secret_basic")
            #expect(server.tokenRequests.first?.clientSecret == "s3cret")
            let saved = try String(contentsOfFile: stateFile, encoding: .utf8)
            #expect(!saved.contains("s3cret") && saved.contains("\"confidential\" : true"))

            let requests = server.tokenRequests.count
            let refresh = try await eua(["refresh", "--state-file", stateFile])
            #expect(refresh.status == 1)
            #expect(
                refresh.stderr.contains("confidential client (client_secret_basic)")
                    && refresh.stderr.contains("--client-secret-file") && refresh.stderr.contains("EUA_CLIENT_SECRET"),
                "stderr: \(refresh.stderr)")
            #expect(server.tokenRequests.count == requests, "no request with an empty secret was sent")
            #expect(try String(contentsOfFile: stateFile, encoding: .utf8) == saved, "the saved state is unchanged")

            let withSecret = try await eua(["refresh", "--state-file", stateFile, "--client-secret-file", path])
            #expect(withSecret.status == 0, "stderr: \(withSecret.stderr)")
            #expect(
                server.tokenRequests.last?.grantType == "refresh_token" && server.tokenRequests.last?.refusal == nil)
        }
    }

    @Test(
        "--timeout 2 against a server that accepts and never answers: exit 1 well within 10 s, naming discovery and host:port"
    )
    func silentServer() async throws {
        let silent = try SilentListener()
        defer { silent.close() }
        let folder = try TemporaryFolder()
        let started = Date()
        let result = try await eua([
            "login", "--issuer", silent.url, "--client-id", "c", "--agent", "headless",
            "--timeout", "2", "--state-file", folder.path + "/s.json",
        ])
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(result.status == 1)
        #expect(
            result.stderr.contains("discovery failed") && result.stderr.contains("127.0.0.1:\(silent.port)")
                && result.stderr.contains("did not answer"), "stderr: \(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/s.json"))
    }

    @Test("a closed port: exit 1 at once, naming discovery, host:port and what to check")
    func closedPort() async throws {
        let port = try OIDCProviderMock.freePort()
        let started = Date()
        let result = try await eua([
            "login", "--issuer", "http://127.0.0.1:\(port)", "--client-id", "c",
            "--agent", "headless", "--timeout", "2",
        ])
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(result.status == 1)
        #expect(
            result.stderr.contains("discovery failed") && result.stderr.contains("127.0.0.1:\(port)")
                && result.stderr.contains("refused the connection"), "stderr: \(result.stderr)")
    }

    @Test(
        "eua refresh --timeout 2 against a token endpoint that stops answering: exit 1 well within 10 s, naming the refresh; the state is kept"
    )
    func silentRefresh() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            let login = try await login(server.issuer, clientID: server.options.clientID, stateFile: stateFile, [])
            #expect(login.status == 0, "stderr: \(login.stderr)")
            let saved = try String(contentsOfFile: stateFile, encoding: .utf8)
            server.update {
                $0.misbehaviors = [.slowTokenEndpoint]
                $0.tokenEndpointDelay = .seconds(60)
            }
            let started = Date()
            let refresh = try await eua(["refresh", "--state-file", stateFile, "--timeout", "2"])
            #expect(Date().timeIntervalSince(started) < 10)
            #expect(refresh.status == 1)
            #expect(
                refresh.stderr.contains("the refresh at the token endpoint")
                    && refresh.stderr.contains("127.0.0.1:\(server.port)")
                    && refresh.stderr.contains("did not answer"), "stderr: \(refresh.stderr)")
            #expect(try String(contentsOfFile: stateFile, encoding: .utf8) == saved, "nothing was lost")
        }
    }

    @Test("the device grant without an ID token: signed in, who is unknown; with UserInfo, who it says")
    func deviceWithoutIDToken() async throws {
        for servesUserinfo in [false, true] {
            let server = try await LocalAuthorizationServer.start(
                .init(
                    tokenResponseOverrides: ["id_token": ""],
                    servesUserinfo: servesUserinfo,
                    userinfoName: "Alice Example"))
            server.deviceAuthorization.update {
                $0.enabled = true
                $0.interval = 1
            }
            let folder = try TemporaryFolder()
            let result = try await eua([
                "login", "--issuer", server.issuer, "--client-id", server.options.clientID,
                "--flow", "device", "--timeout", "30", "--state-file", folder.path + "/s.json",
            ])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            if servesUserinfo {
                #expect(
                    result.stdout.contains("Signed in as Alice Example (alice) at \(server.issuer)."),
                    "\(result.stdout)")
            } else {
                #expect(
                    result.stdout.contains("Signed in at \(server.issuer); who signed in is unknown"),
                    "\(result.stdout)")
            }
            #expect(FileManager.default.fileExists(atPath: folder.path + "/s.json"))
            await server.stop()
        }
    }
}
