// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentTesting
import Foundation
import Testing

/// The secret-service back end, the built `eua` inside a real Secret Service (gnome-keyring-daemon, unlocked,
/// on a private session bus) against the local authorization server: tokens never on disk in clear.
@Suite("Secret Service storage, end to end", .onOwnThreads)
struct SecretServiceStorageTests {
    struct Setup {
        var server: LocalAuthorizationServer
        var state: TemporaryFolder
        var session: SecretServiceSession
        var accountsFolder: String { state.path + "/eua/accounts" }

        /// `eua arguments…` inside the keyring's session.
        func eua(_ arguments: [String], extra: [String: String] = [:]) async throws -> ProcessResult {
            let executable = try TestPaths.product("eua")
            let environment = OIDCRun.environment.merging(["XDG_STATE_HOME": state.path]) { $1 }.merging(extra) { $1 }
            return try await offThePool { [session] in try session.run(executable, arguments, environment: environment)
            }
        }

        /// `eua login --json` as `subject` inside the session; the printed token response.
        func login(as subject: String, extra: [String: String] = [:]) async throws -> [String: Any] {
            server.update { $0.subject = subject }
            let result = try await eua(
                [
                    "login", "--issuer", server.issuer, "--client-id", server.options.clientID,
                    "--scope", "openid email", "--agent", "headless", "--agent-option", "mode=follow",
                    "--timeout", "30", "--json",
                ], extra: extra)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            return try OIDCRun.lastJSON(result.stdout)
        }

        /// Every file under the state folder whose bytes contain `text`.
        func filesHolding(_ text: String) throws -> [String] {
            let enumerator = FileManager.default.enumerator(atPath: state.path)
            var found: [String] = []
            while let name = enumerator?.nextObject() as? String {
                let path = state.path + "/" + name
                if let data = FileManager.default.contents(atPath: path), data.range(of: Data(text.utf8)) != nil {
                    found.append(name)
                }
            }
            return found
        }
    }

    /// Runs `body` with a server, a state folder and a keyring session; the server is stopped however `body` ends.
    func withSetup(_ body: (Setup) async throws -> Void) async throws {
        try await LocalAuthorizationServer.withServer { server in
            try await body(Setup(server: server, state: try TemporaryFolder(), session: try SecretServiceSession()))
        }
    }

    @Test("login saves to the Secret Service when one answers: no token on disk; accounts, token and a refresh use it")
    func loginTokenRefresh() async throws {
        try await withSetup { setup in
            let login = try await setup.login(as: "alice")
            let access = try #require(login["access_token"] as? String)
            let refresh = try #require(login["refresh_token"] as? String)
            #expect(try setup.filesHolding(access).isEmpty && setup.filesHolding(refresh).isEmpty)
            let index = try #require(
                try FileManager.default.contentsOfDirectory(atPath: setup.accountsFolder).first {
                    $0.hasSuffix(".json")
                })
            let indexText = try String(contentsOfFile: setup.accountsFolder + "/" + index, encoding: .utf8)
            #expect(
                indexText.contains("\"storage\" : \"secret-service\"") && indexText.contains("\"subject\" : \"alice\""),
                "\(indexText)")

            let listed = try await setup.eua(["accounts", "--json"])
            #expect(listed.status == 0, "\(listed.stderr)")
            let accounts = try #require(
                try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
            #expect(accounts.map { $0["backend"] as? String } == ["secret-service"])
            #expect(accounts.first?["subject"] as? String == "alice" && accounts.first?["can_refresh"] as? Bool == true)
            #expect(!listed.stdout.contains(access))

            let before = setup.server.tokenRequests.count
            let token = try await setup.eua(["token"])
            #expect(token.status == 0 && token.stdout == access + "\n", "\(token.stderr)")
            #expect(setup.server.tokenRequests.count == before)

            let renewed = try await setup.eua(["token", "--min-valid", "7200"])
            #expect(renewed.status == 0, "\(renewed.stderr)")
            let request = try #require(setup.server.tokenRequests.last)
            #expect(request.grantType == "refresh_token" && request.grantValue == refresh && request.refusal == nil)
            let newAccess = renewed.stdout.trimmingCharacters(in: .newlines)
            #expect(!newAccess.isEmpty && newAccess != access)
            #expect(try setup.filesHolding(newAccess).isEmpty)
            let again = try await setup.eua(["token"])
            #expect(
                again.stdout == newAccess + "\n", "the refreshed token was saved in the Secret Service: \(again.stderr)"
            )

            let doctor = try await setup.eua(["doctor"])
            #expect(
                doctor.stdout.contains(
                    "Storage: secret-service — tokens in the Secret Service, an index without secrets in "
                        + "\(setup.accountsFolder) (1 account now; see 'eua accounts'); why: a Secret Service answers on the session bus."
                ),
                "\(doctor.stdout)")
        }
    }

    /// The keyring items of eua's schema for `subject`, as the Secret Service itself lists them (D-Bus SearchItems).
    func keyringItems(_ setup: Setup, subject: String) async throws -> [String] {
        let arguments = [
            "--session", "--print-reply", "--dest=org.freedesktop.secrets", "/org/freedesktop/secrets",
            "org.freedesktop.Secret.Service.SearchItems",
            "dict:string:string:xdg:schema,org.externaluseragent.Token,subject,\(subject)",
        ]
        let result = try await offThePool { [session = setup.session] in
            try session.run(URL(fileURLWithPath: "/usr/bin/dbus-send"), arguments)
        }
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").filter {
            $0.contains("object path \"/org/freedesktop/secrets/collection")
        }
        .map(String.init)
    }

    @Test("eua logout removes the account's keyring item, not only its index")
    func logoutClearsKeyring() async throws {
        try await withSetup { setup in
            _ = try await setup.login(as: "alice")
            #expect(try await keyringItems(setup, subject: "alice").count == 1)
            let logout = try await setup.eua(["logout", "--local"])
            #expect(logout.status == 0, "\(logout.stderr)")
            #expect(try await keyringItems(setup, subject: "alice").isEmpty, "the tokens are gone from the keyring")
            let left = try FileManager.default.contentsOfDirectory(atPath: setup.accountsFolder).filter {
                $0.hasSuffix(".json")
            }
            #expect(left.isEmpty, "\(left)")
        }
    }

    @Test("two accounts in the Secret Service: --account picks each one's token")
    func twoAccounts() async throws {
        try await withSetup { setup in
            let alice = try #require(try await setup.login(as: "alice")["access_token"] as? String)
            let alan = try #require(try await setup.login(as: "alan")["access_token"] as? String)
            for (account, expected) in [("alice", alice), ("alan@example.com", alan)] {
                let result = try await setup.eua(["token", "--account", account])
                #expect(result.status == 0 && result.stdout == expected + "\n", "\(account): \(result.stderr)")
            }
            let refreshed = try await setup.eua(["refresh", "--account", "alan"])
            #expect(refreshed.status == 0, "\(refreshed.stderr)")
            #expect(setup.server.tokenRequests.last?.grantType == "refresh_token")
            let both = try await setup.eua(["accounts"])
            #expect(
                both.stdout.split(separator: "\n").filter { $0.hasSuffix("back end secret-service") }.count == 2,
                "\(both.stdout)")
        }
    }

    @Test("EUA_STORAGE=file inside the session keeps the tokens in the file, as forced")
    func forcedFile() async throws {
        try await withSetup { setup in
            let access = try #require(
                try await setup.login(as: "alice", extra: ["EUA_STORAGE": "file"])["access_token"] as? String)
            #expect(try setup.filesHolding(access).count == 1)
            let listed = try await setup.eua(["accounts", "--json"])
            #expect(listed.stdout.contains("\"backend\":\"file\""), "\(listed.stdout)")
            let doctor = try await setup.eua(["doctor"], extra: ["EUA_STORAGE": "file"])
            #expect(
                doctor.stdout.contains("why: storage.backend is \"file\" (environment EUA_STORAGE)."),
                "\(doctor.stdout)")
        }
    }

    @Test("secret-service forced without a session bus: a clear error before signing in, nothing saved")
    func forcedWithoutBus() async throws {
        try await withSetup { setup in
            let before = setup.server.requestLog.count
            let environment = OIDCRun.environment.merging([
                "XDG_STATE_HOME": setup.state.path, "DBUS_SESSION_BUS_ADDRESS": "",
                "EUA_STORAGE": "secret-service",
            ]) { $1 }
            let login = try await OIDCRun.eua(
                [
                    "login", "--issuer", setup.server.issuer, "--client-id", "test-client",
                    "--agent", "headless", "--agent-option", "mode=follow", "--timeout", "30",
                ],
                environment: environment)
            #expect(login.status == 1)
            #expect(
                login.stderr.contains(
                    "storage.backend is \"secret-service\" (environment EUA_STORAGE), but no Secret Service "
                        + "answers: no session bus: DBUS_SESSION_BUS_ADDRESS is not set")
                    && login.stderr.contains("storageUnavailable"),
                "\(login.stderr)")
            #expect(setup.server.requestLog.count == before, "nothing was asked of the server")
            #expect(!FileManager.default.fileExists(atPath: setup.accountsFolder))
            let doctor = try await OIDCRun.eua(["doctor"], environment: environment)
            #expect(
                doctor.status == 1
                    && doctor.stdout.contains("Storage: unavailable — storage.backend is \"secret-service\""),
                "\(doctor.stdout)")
        }
    }

    @Test(
        "[storage] backend in a configuration file: another value is an error naming the file and line",
        arguments: ["\"keyring\"", "true"])
    func configurationValue(value: String) async throws {
        let folder = try TemporaryFolder()
        let config = try folder.folder("config").appendingPathComponent("eua")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "[receiver]\npath = \"/cb\"\n\n[storage]\nbackend = \(value)\n".write(
            to: config.appendingPathComponent("config.toml"),
            atomically: true, encoding: .utf8)
        let result = try await OIDCRun.eua(
            ["login", "--issuer", "http://127.0.0.1:9", "--client-id", "c"],
            environment: OIDCRun.environment.merging(["XDG_CONFIG_HOME": folder.path + "/config"]) { $1 })
        #expect(result.status != 0)
        #expect(
            result.stderr.contains("config.toml:5") && result.stderr.contains("\"secret-service\" or \"file\""),
            "\(result.stderr)")
    }
}
