// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentTesting
import Foundation
import Testing

/// The built `eua login --dpop` and `eua refresh` against the local server's DPoP (RFC 9449): proofs with its nonce,
/// the key bound to the tokens, the same key on refresh, and a server that answers Bearer refused.
@Suite("eua login --dpop", .onOwnThreads)
struct DPoPLoginTests {
    static let environment = ["EUA_ALLOW_TEST_AGENTS": "1", "EUA_CLIENT_SECRET": ""]

    func eua(_ arguments: [String]) async throws -> ProcessResult {
        let executable = try TestPaths.product("eua")
        return try await offThePool {
            try ProcessRunner.run(executable, arguments, environment: Self.environment, timeout: 90)
        }
    }

    func login(_ server: LocalAuthorizationServer, stateFile: String) async throws -> ProcessResult {
        try await eua([
            "login", "--issuer", server.issuer, "--client-id", server.options.clientID, "--scope", "openid",
            "--agent", "headless", "--agent-option", "mode=follow", "--timeout", "30", "--state-file", stateFile,
            "--dpop", "--json",
        ])
    }

    static func state(_ stateFile: String) throws -> [String: Any] {
        try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stateFile))) as? [String: Any])
    }

    @Test("a DPoP sign-in: nonce asked and sent, dpop_jkt, token bound to the key; refresh proves the same key")
    func signInAndRefresh() async throws {
        try await LocalAuthorizationServer.withServer { server in
            server.dpop.update {
                $0.enabled = true
                $0.requiresNonce = true
            }
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/state.json"
            let result = try await login(server, stateFile: stateFile)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let records = server.dpop.records
            #expect(records.map(\.refusal) == ["use_dpop_nonce", nil], "one retry with the nonce: \(records)")
            #expect(records.first?.nonce == nil && records.last?.nonce != nil)
            #expect(records.allSatisfy { $0.htm == "POST" && $0.htu == server.issuer + "/token" })
            let thumbprint = try #require(records.last?.thumbprint)
            #expect(server.authorizationRequests.first?["dpop_jkt"] == thumbprint)
            let state = try Self.state(stateFile)
            let tokens = try #require(state["token_response"] as? [String: Any])
            #expect(tokens["token_type"] as? String == "DPoP")
            let accessToken = try #require(tokens["access_token"] as? String)
            #expect(server.dpop.boundKey(ofAccessToken: accessToken) == thumbprint, "the token's cnf.jkt is the key's")
            let key = try #require(state["dpop_key"] as? [String: String])
            #expect(key["kty"] == "EC" && key["crv"] == "P-256" && key["d"]?.count == 43)
            let secretScalar = try #require(key["d"])
            #expect(
                !result.stdout.contains(secretScalar) && !result.stderr.contains(secretScalar),
                "the private key is never printed")
            let mode = try FileManager.default.attributesOfItem(atPath: stateFile)[.posixPermissions] as? Int
            #expect(mode == 0o600)

            let refreshed = try await eua(["refresh", "--state-file", stateFile, "--json"])
            #expect(refreshed.status == 0, "stderr: \(refreshed.stderr)")
            #expect(!refreshed.stdout.contains(secretScalar))
            let refresh = server.dpop.records.dropFirst(2)
            #expect(refresh.last?.refusal == nil)
            #expect(refresh.last?.thumbprint == thumbprint, "the refresh proves the same key")
            #expect(
                server.tokenRequests.last?.grantType == "refresh_token" && server.tokenRequests.last?.refusal == nil)
        }
    }

    @Test("a server that answers token_type Bearer to a DPoP request: exit 1, the reason, nothing saved")
    func bearerRefused() async throws {
        try await LocalAuthorizationServer.withServer { server in
            server.dpop.update {
                $0.enabled = true
                $0.issuesBearer = true
            }
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/state.json"
            let result = try await login(server, stateFile: stateFile)
            #expect(result.status == 1, "stderr: \(result.stderr)")
            #expect(
                result.stderr.contains("with token_type 'Bearer', not 'DPoP'; the tokens were refused"),
                "stderr: \(result.stderr)")
            #expect(
                server.dpop.records.count == 1 && server.dpop.records.first?.refusal == nil, "the proof itself was good"
            )
            #expect(!FileManager.default.fileExists(atPath: stateFile))
        }
    }

    @Test(
        "eua userinfo with a DPoP-bound token: Authorization DPoP and a proof with ath by the same key; Bearer is refused"
    )
    func userInfo() async throws {
        try await LocalAuthorizationServer.withServer { server in
            server.dpop.update { $0.enabled = true }
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/state.json"
            let login = try await login(server, stateFile: stateFile)
            #expect(login.status == 0, "stderr: \(login.stderr)")
            let thumbprint = try #require(server.dpop.records.last?.thumbprint)
            let result = try await eua(["userinfo", "--state-file", stateFile])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdout.contains("sub: alice"), "\(result.stdout)")
            #expect(server.userInfoRequests.last?.tokenPlacement == "dpop")
            #expect(server.userInfoRequests.last?.answeredSubject == "alice")
            let proof = try #require(server.dpop.records.last)
            #expect(proof.htm == "GET" && proof.htu == server.issuer + "/userinfo" && proof.refusal == nil)
            #expect(proof.thumbprint == thumbprint)

            let tokens = try #require(try Self.state(stateFile)["token_response"] as? [String: Any])
            let accessToken = try #require(tokens["access_token"] as? String)
            let connection = try RawConnection(port: server.port)
            defer { connection.close() }
            _ = connection.send(
                "GET /userinfo HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(accessToken)\r\n"
                    + "Connection: close\r\n\r\n")
            let answer = connection.readAll()
            #expect(RawConnection.status(of: answer) == 401)
            #expect(answer.contains("this access token is DPoP-bound"))
        }
    }
}
