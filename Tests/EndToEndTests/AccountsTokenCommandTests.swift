// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentTesting
import Foundation
import Testing

/// Several accounts (`eua login` without --state-file, `eua accounts`, `--account`) and `eua token`, the built
/// binary against the local authorization server, each test in its own `XDG_STATE_HOME`.
@Suite("eua accounts and eua token, end to end", .onOwnThreads)
struct AccountsTokenCommandTests {
    /// A server and an empty state folder that live as long as this value.
    struct Setup {
        var server: LocalAuthorizationServer
        var folder: TemporaryFolder
        var environment: [String: String]
        var accountsFolder: String { folder.path + "/eua/accounts" }

        /// `eua arguments…` with this setup's state folder.
        func eua(_ arguments: [String], extra: [String: String] = [:]) async throws -> ProcessResult {
            try await OIDCRun.eua(arguments, environment: environment.merging(extra) { $1 })
        }

        /// `eua login` (no --state-file) with the headless agent, as `subject`.
        func login(as subject: String, extra: [String] = []) async throws -> ProcessResult {
            server.update { $0.subject = subject }
            return try await eua(
                [
                    "login", "--issuer", server.issuer, "--client-id", server.options.clientID,
                    "--scope", "openid email", "--agent", "headless", "--agent-option", "mode=follow",
                    "--timeout", "30",
                ] + extra)
        }

        /// The saved access token of every account file, by subject.
        func savedAccessTokens() throws -> [String: String] {
            var tokens: [String: String] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: accountsFolder)
            where name.hasSuffix(".json") {
                let data = try Data(contentsOf: URL(fileURLWithPath: accountsFolder + "/" + name))
                let state = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
                let claims = try #require(state["id_token_claims"] as? [String: Any])
                let response = try #require(state["token_response"] as? [String: Any])
                tokens[try #require(claims["sub"] as? String)] = try #require(response["access_token"] as? String)
            }
            return tokens
        }
    }

    /// Runs `body` with a server started with `options` and an empty state folder; the server is stopped however
    /// `body` ends.
    func withSetup(_ options: LocalAuthorizationServerOptions = .init(), _ body: (Setup) async throws -> Void)
        async throws
    {
        try await LocalAuthorizationServer.withServer(options) { server in
            let folder = try TemporaryFolder()
            try await body(
                Setup(
                    server: server, folder: folder,
                    environment: OIDCRun.environment.merging(
                        ["XDG_STATE_HOME": folder.path, "DBUS_SESSION_BUS_ADDRESS": ""]) { $1 }))
        }
    }

    @Test(
        "a corrupt account file is named with what is wrong, and 'eua accounts' and 'eua token' go on with the others")
    func corruptAccountFile() async throws {
        try await withSetup { setup in
            let login = try await setup.login(as: "alice")
            try #require(login.status == 0, "stderr: \(login.stderr)")
            let saved = try #require(try setup.savedAccessTokens()["alice"])
            let corrupt = setup.accountsFolder + "/" + String(repeating: "0", count: 32) + ".json"
            #expect(
                FileManager.default.createFile(
                    atPath: corrupt, contents: Data("{not json".utf8),
                    attributes: [.posixPermissions: 0o600]))
            let listed = try await setup.eua(["accounts"])
            #expect(listed.status == 0, "stderr: \(listed.stderr)")
            #expect(listed.stdout.contains("alice (alice@example.com) at \(setup.server.issuer)"), "\(listed.stdout)")
            #expect(
                listed.stderr.contains(
                    "skipped an account file that cannot be read: authorization state file \(corrupt)"),
                "\(listed.stderr)")
            #expect(listed.stderr.contains("not JSON"), "what is wrong: \(listed.stderr)")
            let token = try await setup.eua(["token"])
            #expect(token.status == 0, "stderr: \(token.stderr)")
            #expect(saved == token.stdout.trimmingCharacters(in: .newlines))
            #expect(token.stderr.contains(corrupt))
            // Only corrupt files: said, exit 1, not "no account is signed in".
            for name in try FileManager.default.contentsOfDirectory(atPath: setup.accountsFolder)
            where name.hasSuffix(".json")
                && setup.accountsFolder + "/" + name != corrupt
            {
                try FileManager.default.removeItem(atPath: setup.accountsFolder + "/" + name)
            }
            let only = try await setup.eua(["accounts"])
            #expect(
                only.status == 1 && only.stderr.contains("can be read (see above)") && only.stderr.contains(corrupt),
                "\(only.stderr)")
            let noToken = try await setup.eua(["token"])
            #expect(
                noToken.status != 0 && noToken.stderr.contains(corrupt) && noToken.stdout.isEmpty, "\(noToken.stderr)")
        }
    }

    @Test("two subjects make two accounts, signing in again replaces one; 'eua accounts' lists them, no token")
    func twoAccounts() async throws {
        try await withSetup { setup in
            for subject in ["alice", "alan", "alice"] {
                let login = try await setup.login(as: subject)
                #expect(login.status == 0, "stderr: \(login.stderr)")
                #expect(login.stdout.contains("State saved to \(setup.accountsFolder)/"), "\(login.stdout)")
            }
            let tokens = try setup.savedAccessTokens()
            #expect(tokens.keys.sorted() == ["alan", "alice"])
            #expect(setup.server.tokenRequests.filter { $0.grantType == "authorization_code" }.count == 3)
            let listed = try await setup.eua(["accounts", "--json"])
            #expect(listed.status == 0, "stderr: \(listed.stderr)")
            let line = try #require(listed.stdout.split(separator: "\n").last)
            let accounts = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [[String: Any]])
            #expect(accounts.map { $0["subject"] as? String } == ["alan", "alice"])
            #expect(
                accounts.allSatisfy {
                    $0["issuer"] as? String == setup.server.issuer && $0["client_id"] as? String == "test-client"
                })
            #expect(accounts.allSatisfy { $0["backend"] as? String == "file" && $0["can_refresh"] as? Bool == true })
            #expect(accounts.first?["email"] as? String == "alan@example.com")
            let plain = try await setup.eua(["accounts"])
            #expect(
                plain.status == 0 && plain.stdout.contains("alice (alice@example.com) at \(setup.server.issuer)"),
                "\(plain.stdout)")
            for token in tokens.values {
                #expect(
                    !listed.stdout.contains(token) && !plain.stdout.contains(token) && !plain.stderr.contains(token))
            }
            let files = try FileManager.default.contentsOfDirectory(atPath: setup.accountsFolder).filter {
                $0.hasSuffix(".json")
            }
            for name in files {
                let mode =
                    try FileManager.default.attributesOfItem(atPath: setup.accountsFolder + "/" + name)[
                        .posixPermissions] as? Int
                #expect(mode == 0o600, "\(name)")
            }
        }
    }

    @Test("eua doctor names the storage back end, why, its folder and how many accounts it holds")
    func doctorStorage() async throws {
        try await withSetup { setup in
            for subject in ["alice", "alan"] { #expect(try await setup.login(as: subject).status == 0) }
            let json = try await setup.eua(["doctor", "--json"])
            let storage = try #require(try OIDCRun.lastJSON(json.stdout)["storage"] as? [String: Any], "\(json.stderr)")
            #expect(storage["backend"] as? String == "file" && storage["accounts"] as? Int == 2)
            #expect(
                storage["reason"] as? String
                    == "no session bus: DBUS_SESSION_BUS_ADDRESS is not set; files of mode 0600 instead")
            #expect(storage["folder"] as? String == setup.accountsFolder)
            let plain = try await setup.eua(["doctor"])
            #expect(
                plain.stdout.contains(
                    "Storage: file — private files (mode 0600), one per account, in "
                        + "\(setup.accountsFolder) (2 accounts now; see 'eua accounts'); why: no session bus: "
                        + "DBUS_SESSION_BUS_ADDRESS is not set; files of mode 0600 instead."), "\(plain.stdout)")
        }
    }

    @Test(
        "eua token prints the saved token, one line, with no token request; --account picks by subject or a unique prefix"
    )
    func tokenWithoutNetwork() async throws {
        try await withSetup { setup in
            for subject in ["alice", "alan"] { #expect(try await setup.login(as: subject).status == 0) }
            let saved = try setup.savedAccessTokens()
            let before = setup.server.tokenRequests.count
            let alice = try await setup.eua(["token", "--account", "ali"])
            #expect(alice.status == 0, "stderr: \(alice.stderr)")
            #expect(alice.stdout == saved["alice"]! + "\n")
            #expect(alice.stderr.isEmpty, "\(alice.stderr)")
            let alan = try await setup.eua(["token", "--account", "alan@example.com", "--json"])
            #expect(alan.status == 0, "stderr: \(alan.stderr)")
            let json = try OIDCRun.lastJSON(alan.stdout)
            #expect(json["access_token"] as? String == saved["alan"] && json["token_type"] as? String == "Bearer")
            #expect(json["expires_at"] is String)
            #expect(
                setup.server.tokenRequests.count == before, "eua token asked the server although the token was fresh")
        }
    }

    @Test("an ambiguous, unknown or missing --account among several is an error listing the accounts (exit 1)")
    func accountChoiceErrors() async throws {
        try await withSetup { setup in
            for subject in ["alice", "alan"] { #expect(try await setup.login(as: subject).status == 0) }
            let cases: [([String], String)] = [
                (["token"], "several accounts are signed in; name one"),
                (["token", "--account", "al"], "the account 'al' begins several accounts; say more"),
                (["token", "--account", "mallory"], "the account 'mallory' names no signed-in account"),
                (["refresh", "--account", "al"], "the account 'al' begins several accounts"),
                (["userinfo", "--account", "mallory"], "the account 'mallory' names no signed-in account"),
            ]
            for (arguments, message) in cases {
                let result = try await setup.eua(arguments)
                #expect(result.status == 1, "\(arguments): \(result.stderr)")
                #expect(
                    result.stderr.contains(message) && result.stderr.contains("(--account) [accountChoiceInvalid]"),
                    "\(arguments): \(result.stderr)")
                #expect(
                    result.stderr.contains(
                        "alice (alice@example.com) at \(setup.server.issuer), client test-client [id ")
                        && result.stderr.contains("alan (alan@example.com)"), "\(arguments): \(result.stderr)")
                #expect(result.stdout.isEmpty)
            }
            let both = try await setup.eua([
                "token", "--account", "alice", "--state-file", setup.folder.path + "/s.json",
            ])
            #expect(
                both.status == 64 && both.stderr.contains("give --state-file or --account, not both"), "\(both.stderr)")
        }
    }

    @Test("--account on refresh and userinfo: the chosen account is refreshed and saved, and asked about")
    func refreshAndUserInfoByAccount() async throws {
        try await withSetup { setup in
            for subject in ["alice", "alan"] { #expect(try await setup.login(as: subject).status == 0) }
            let before = try setup.savedAccessTokens()
            let refresh = try await setup.eua(["refresh", "--account", "alan"])
            #expect(refresh.status == 0, "stderr: \(refresh.stderr)")
            let after = try setup.savedAccessTokens()
            #expect(after["alan"] != before["alan"] && after["alice"] == before["alice"])
            let refreshed = try #require(setup.server.tokenRequests.last)
            #expect(refreshed.grantType == "refresh_token")
            let userinfo = try await setup.eua(["userinfo", "--account", "alan"])
            #expect(
                userinfo.status == 0 && userinfo.stdout.contains("sub: alan\n"), "\(userinfo.stdout) \(userinfo.stderr)"
            )
            let request = try #require(setup.server.requestLog.last { $0.target == "/userinfo" })
            #expect(request.header("Authorization") == "Bearer \(after["alan"]!)")
        }
    }

    @Test("eua token refreshes a token valid for less than --min-valid, prints and saves the new one")
    func tokenRefreshes() async throws {
        try await withSetup { setup in
            #expect(try await setup.login(as: "alice").status == 0)
            let old = try #require(try setup.savedAccessTokens()["alice"])
            let result = try await setup.eua(["token", "--min-valid", "7200"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let new = try #require(try setup.savedAccessTokens()["alice"])
            #expect(new != old && result.stdout == new + "\n")
            #expect(setup.server.tokenRequests.last?.grantType == "refresh_token")
            #expect(setup.server.tokenRequests.last?.refusal == nil)
        }
    }

    @Test("a confidential client's refresh sends EUA_CLIENT_SECRET; without it nothing is sent (exit 1)")
    func confidentialClient() async throws {
        try await withSetup(LocalAuthorizationServerOptions(clientSecret: "s3cret-for-test")) { setup in
            let login = try await setup.login(as: "alice", extra: ["--client-secret", "s3cret-for-test"])
            #expect(login.status == 0, "stderr: \(login.stderr)")
            let sent = setup.server.tokenRequests.count
            let missing = try await setup.eua(["token", "--min-valid", "7200"])
            #expect(
                missing.status == 1 && missing.stderr.contains("no client secret was given")
                    && missing.stderr.contains("EUA_CLIENT_SECRET"), "\(missing.stderr)")
            #expect(setup.server.tokenRequests.count == sent)
            let given = try await setup.eua(
                ["token", "--min-valid", "7200"], extra: ["EUA_CLIENT_SECRET": "s3cret-for-test"])
            #expect(given.status == 0, "stderr: \(given.stderr)")
            #expect(setup.server.tokenRequests.last?.clientSecret == "s3cret-for-test")
            #expect(setup.server.tokenRequests.last?.grantType == "refresh_token")
            #expect(!given.stdout.contains("s3cret") && !given.stderr.contains("s3cret"))
        }
    }

    @Test("sign-in needed (exit 2): no account saved, and a refresh token the server refuses")
    func signInNeeded() async throws {
        try await withSetup(LocalAuthorizationServerOptions(rotatesRefreshTokens: true)) { setup in
            let none = try await setup.eua(["token"])
            #expect(
                none.status == 2 && none.stderr.contains("no account is signed in")
                    && none.stderr.contains("eua login"),
                "\(none.stderr)")
            #expect(none.stdout.isEmpty)
            #expect(try await setup.login(as: "alice").status == 0)
            let file = try #require(
                try FileManager.default.contentsOfDirectory(atPath: setup.accountsFolder).first {
                    $0.hasSuffix(".json")
                })
            let path = setup.accountsFolder + "/" + file
            let stale = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(try await setup.eua(["token", "--min-valid", "7200"]).status == 0)
            try stale.write(to: URL(fileURLWithPath: path))
            let refused = try await setup.eua(["token", "--min-valid", "7200"])
            #expect(
                refused.status == 2 && refused.stderr.contains("sign-in needed")
                    && refused.stderr.contains("invalid_grant"),
                "\(refused.stderr)")
            #expect(refused.stdout.isEmpty)
            #expect(setup.server.tokenRequests.last?.refusal == "invalid_grant")
            let again = try await setup.eua(["token"])
            #expect(
                again.status == 2 && again.stderr.contains("refused this sign-in's refresh token"), "\(again.stderr)")
            let listed = try await setup.eua(["accounts"])
            #expect(listed.stdout.contains("sign in again"), "\(listed.stdout)")
        }
    }

    @Test("a hostile subject ('../../x', a terminal escape) names a plain file in the folder and is shown escaped")
    func hostileSubject() async throws {
        try await withSetup { setup in
            for subject in ["../../escaped", "\u{1B}[31mred"] {
                let login = try await setup.login(as: subject)
                #expect(login.status == 0, "\(subject): \(login.stderr)")
            }
            let names = try FileManager.default.contentsOfDirectory(atPath: setup.accountsFolder).filter {
                !$0.hasSuffix(".lock")
            }
            #expect(names.count == 2 && names.allSatisfy { $0.count == 37 && $0.hasSuffix(".json") }, "\(names)")
            #expect(!FileManager.default.fileExists(atPath: setup.folder.path + "/escaped"))
            let plain = try await setup.eua(["accounts"])
            #expect(
                plain.status == 0 && plain.stdout.contains("../../escaped (../../escaped@example.com) at ")
                    && plain.stdout.contains("\\x1b[31mred ("), "\(plain.stdout)")
            #expect(!plain.stdout.contains("\u{1B}"), "the escape reached the terminal: \(plain.stdout)")
            let chosen = try await setup.eua(["token", "--account", "../../esc"])
            #expect(chosen.status == 0, "\(chosen.stderr)")
        }
    }

    @Test("other files in the accounts folder are ignored; a corrupt account file is named, and the others are used")
    func strayAndCorruptFiles() async throws {
        try await withSetup { setup in
            #expect(try await setup.login(as: "alice").status == 0)
            for name in ["notes.txt", "x.json", "0123456789abcdef0123456789abcdeF.json"] {
                _ = FileManager.default.createFile(atPath: setup.accountsFolder + "/" + name, contents: Data("{".utf8))
            }
            let listed = try await setup.eua(["accounts", "--json"])
            #expect(listed.status == 0, "\(listed.stderr)")
            #expect((try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [Any])?.count == 1)
            let corrupt = setup.accountsFolder + "/0123456789abcdef0123456789abcdef.json"
            _ = FileManager.default.createFile(
                atPath: corrupt, contents: Data("{\"format\":".utf8), attributes: [.posixPermissions: 0o600])
            let broken = try await setup.eua(["token"])
            #expect(
                broken.status == 0 && broken.stderr.contains("authorization state file \(corrupt): it is not JSON"),
                "\(broken.stderr)")
        }
    }

    @Test("--min-valid out of range is a usage error (exit 64)", arguments: ["-1", "86401", "lots"])
    func minValidRange(value: String) async throws {
        let result = try await OIDCRun.eua(["token", "--min-valid", value])
        #expect(result.status == 64, "\(value): \(result.stderr)")
        #expect(result.stderr.contains("--min-valid"), "\(result.stderr)")
    }

    @Test("a state file of the single-account layout (auth-state.json) is moved into the accounts and still used")
    func legacyFileMigrates() async throws {
        try await withSetup { setup in
            let legacy = setup.folder.path + "/eua/auth-state.json"
            let login = try await OIDCRun.login(setup.server, stateFile: legacy)
            #expect(login.status == 0, "stderr: \(login.stderr)")
            let token = try #require(try OIDCRun.savedTokens(legacy)["access_token"] as? String)
            let listed = try await setup.eua(["accounts", "--json"])
            #expect(listed.status == 0, "stderr: \(listed.stderr)")
            let accounts = try #require(
                try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
            #expect(accounts.map { $0["subject"] as? String } == ["alice"])
            #expect(!FileManager.default.fileExists(atPath: legacy))
            #expect(try setup.savedAccessTokens() == ["alice": token])
            let printed = try await setup.eua(["token"])
            #expect(printed.status == 0 && printed.stdout == token + "\n", "\(printed.stderr)")
        }
    }

    @Test("an old file written before revisions (no \"revision\" key) still reads")
    func legacyFileWithoutRevision() async throws {
        try await withSetup { setup in
            let legacy = setup.folder.path + "/eua/auth-state.json"
            #expect(try await OIDCRun.login(setup.server, stateFile: legacy).status == 0)
            var state = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: legacy))) as? [String: Any]
            )
            state.removeValue(forKey: "revision")
            try JSONSerialization.data(withJSONObject: state).write(to: URL(fileURLWithPath: legacy))
            chmod(legacy, 0o600)
            let printed = try await setup.eua(["token"])
            #expect(printed.status == 0, "\(printed.stderr)")
            #expect(printed.stdout == (try setup.savedAccessTokens()["alice"] ?? "-") + "\n")
        }
    }
}
