// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentTesting
import Foundation
import Testing

/// The built `eua` against a local authorization server that sends hostile numbers, claims and times,
/// and two `eua refresh` at once against one that rotates refresh tokens: a clear error and exit 1,
/// never a crash; nothing saved that should not be, nothing lost that was saved.
@Suite("eua against a hostile provider", .onOwnThreads)
struct HostileProviderTests {
    static let environment = ["EUA_ALLOW_TEST_AGENTS": "1", "EUA_CLIENT_SECRET": ""]

    func eua(_ arguments: [String]) async throws -> ProcessResult {
        let executable = try TestPaths.product("eua")
        return try await offThePool {
            try ProcessRunner.run(executable, arguments, environment: Self.environment, timeout: 90)
        }
    }

    func login(_ server: LocalAuthorizationServer, stateFile: String) async throws -> ProcessResult {
        try await eua([
            "login", "--issuer", server.issuer, "--client-id", server.options.clientID, "--scope", "openid email",
            "--agent", "headless", "--agent-option", "mode=follow", "--timeout", "30", "--state-file", stateFile,
        ])
    }

    func refresh(_ stateFile: String, _ extra: [String] = []) async throws -> ProcessResult {
        try await eua(["refresh", "--state-file", stateFile, "--json"] + extra)
    }

    static func savedTokens(_ stateFile: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: stateFile))
        let state = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(state["token_response"] as? [String: Any])
    }

    struct Hostile: Sendable, CustomTestStringConvertible {
        var tokenFields: [String: String] = [:]
        var claims: [String: String] = [:]
        var says: String
        var testDescription: String { says }
    }

    static let hostile: [Hostile] = [
        .init(
            tokenFields: ["expires_in": "1e300"], says: "'expires_in' is 1e+300; it must be a whole number of seconds"),
        .init(tokenFields: ["expires_in": "1e19"], says: "'expires_in' is 1e+19;"),
        .init(tokenFields: ["expires_in": "-1e30"], says: "'expires_in' is -1e+30;"),
        .init(claims: ["exp": "1e300"], says: "the ID token's claim 'exp' is 1e+300, not a time between 1970 and 9999"),
        .init(claims: ["iat": "-1e300"], says: "the ID token's claim 'iat' is -1e+300"),
        .init(claims: ["exp": #""soon""#], says: "the ID token's claim 'exp' is a string, not a NumericDate"),
        .init(
            claims: ["aud": "5"],
            says: "the ID token's claim 'aud' is the number 5, not a string or an array of strings"),
        .init(claims: ["nonce": "1"], says: "the ID token's claim 'nonce' is the number 1, not a string"),
        .init(claims: ["iat": ""], says: "the ID token's claim 'iat' is missing"),
        .init(claims: ["sub": ""], says: "the ID token's claim 'sub' is missing"),
    ]

    @Test(
        "hostile numbers and claims end eua login with exit 1 and an error naming the field; nothing is saved",
        arguments: hostile)
    func hostileLogin(_ test: Hostile) async throws {
        try await LocalAuthorizationServer.withServer(
            .init(
                tokenResponseOverrides: test.tokenFields,
                idTokenClaimOverrides: test.claims)
        ) { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/state.json"
            let result = try await login(server, stateFile: stateFile)
            #expect(result.status == 1, "exit status (a crash is not 1); stderr: \(result.stderr)")
            #expect(result.stderr.contains(test.says), "stderr: \(result.stderr)")
            #expect(!result.stderr.contains("signature"), "a claim problem is not reported as a signature failure")
            #expect(!FileManager.default.fileExists(atPath: stateFile), "nothing was saved")
        }
    }

    @Test("a received_at from the server is not trusted: the client's own time decides that the token expired")
    func receivedAtFromServer() async throws {
        try await LocalAuthorizationServer.withServer(
            .init(
                tokenResponseOverrides: ["received_at": "253402300799", "expires_in": "1"])
        ) { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/state.json"
            let started = Date()
            let login = try await login(server, stateFile: stateFile)
            #expect(login.status == 0, "stderr: \(login.stderr)")
            let receivedAt = try #require(try Self.savedTokens(stateFile)["received_at"] as? Double)
            #expect(receivedAt >= started.timeIntervalSince1970 - 1 && receivedAt <= Date().timeIntervalSince1970 + 1)
            try await Task.sleep(for: .seconds(1.5))
            let refreshed = try await refresh(stateFile, ["--if-needed"])
            #expect(refreshed.status == 0, "stderr: \(refreshed.stderr)")
            #expect(
                server.tokenRequests.filter { $0.grantType == "refresh_token" }.count == 1,
                "the expired token was refreshed, whatever the server said about the time")
        }
    }

    @Test("a saved invalid_grant: eua refresh says sign in again without asking the server, and changes nothing")
    func savedAuthorizationError() async throws {
        try await LocalAuthorizationServer.withServer(.init(rotatesRefreshTokens: true)) { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/state.json"
            #expect(try await login(server, stateFile: stateFile).status == 0)
            let beforeRefresh = try Data(contentsOf: URL(fileURLWithPath: stateFile))
            #expect(try await refresh(stateFile).status == 0)
            // Put back the state with the spent refresh token: the server refuses it, and that is saved.
            try beforeRefresh.write(to: URL(fileURLWithPath: stateFile))
            let refused = try await refresh(stateFile)
            #expect(refused.status == 1 && refused.stderr.contains("invalid_grant"), "stderr: \(refused.stderr)")
            let saved = try Data(contentsOf: URL(fileURLWithPath: stateFile))
            #expect(String(decoding: saved, as: UTF8.self).contains("authorization_error"))
            let asked = server.tokenRequests.count

            let again = try await refresh(stateFile)
            #expect(again.status == 1)
            #expect(
                again.stderr.contains("sign in again") && again.stderr.contains("notAuthorized"),
                "stderr: \(again.stderr)")
            #expect(server.tokenRequests.count == asked, "the server was not asked again")
            #expect(try Data(contentsOf: URL(fileURLWithPath: stateFile)) == saved, "the state file is unchanged")
        }
    }

    @Test("two eua refresh at once against a server that rotates refresh tokens: both succeed, nobody is logged out")
    func concurrentRefresh() async throws {
        try await LocalAuthorizationServer.withServer(.init(rotatesRefreshTokens: true)) { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/state.json"
            #expect(try await login(server, stateFile: stateFile).status == 0)
            // A slow token endpoint: without the lock, both processes would present the same refresh token.
            server.update {
                $0.misbehaviors = [.slowTokenEndpoint]
                $0.tokenEndpointDelay = .seconds(1)
            }
            async let first = refresh(stateFile)
            async let second = refresh(stateFile)
            let results = try await [first, second]
            for result in results { #expect(result.status == 0, "stderr: \(result.stderr)") }

            let refreshes = server.tokenRequests.filter { $0.grantType == "refresh_token" }
            #expect(!refreshes.isEmpty)
            #expect(refreshes.allSatisfy { $0.refusal == nil }, "no refresh token was refused")
            #expect(
                Set(refreshes.compactMap(\.grantValue)).count == refreshes.count, "no refresh token was presented twice"
            )
            let saved = try Self.savedTokens(stateFile)
            #expect(saved["refresh_token"] is String)
            let mode = try FileManager.default.attributesOfItem(atPath: stateFile + ".lock")[.posixPermissions] as? Int
            #expect(mode == 0o600, "the lock file beside the state is private")

            server.update { $0.misbehaviors = [] }
            let third = try await refresh(stateFile)
            #expect(third.status == 0, "the saved refresh token works: \(third.stderr)")
            #expect(server.tokenRequests.last?.grantValue == saved["refresh_token"] as? String)
            #expect(server.tokenRequests.last?.refusal == nil)
        }
    }
}
