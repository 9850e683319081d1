// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentTesting
import Foundation
import Testing

/// The built `eua login` against the local server's pushed authorization request endpoint (RFC 9126): the agent
/// gets only client_id and request_uri, the push carries the request, and a server that requires pushing gets no
/// plain request whatever happens.
@Suite("eua login with pushed authorization requests", .onOwnThreads)
struct PushedAuthorizationLoginTests {
    func login(
        _ server: LocalAuthorizationServer, stateFile: String, _ extra: [String] = [],
        secret: String = ""
    ) async throws -> ProcessResult {
        let executable = try TestPaths.product("eua")
        let arguments =
            [
                "login", "--issuer", server.issuer, "--client-id", server.options.clientID, "--scope", "openid",
                "--agent", "headless", "--agent-option", "mode=follow", "--timeout", "30",
                "--state-file", stateFile,
            ] + extra
        let environment = ["EUA_ALLOW_TEST_AGENTS": "1", "EUA_CLIENT_SECRET": secret]
        return try await offThePool {
            try ProcessRunner.run(executable, arguments, environment: environment, timeout: 90)
        }
    }

    static func authorizeQueries(_ server: LocalAuthorizationServer) -> [String] {
        server.requestLog.filter { $0.target.hasPrefix("/authorize") }.map(\.target)
    }

    @Test(
        "offered: the request is pushed with the client's authentication, and the browser sees only client_id and request_uri"
    )
    func pushed() async throws {
        try await LocalAuthorizationServer.withServer(.init(clientSecret: "s3cret")) { server in
            server.pushedAuthorization.update { $0.mode = .offered }
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/state.json"
            let result = try await login(
                server, stateFile: stateFile, ["--prompt", "login", "--resource", "https://api.example/"],
                secret: "s3cret")
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let records = server.pushedAuthorization.records
            #expect(records.count == 1)
            let record = try #require(records.first)
            #expect(record.clientAuthentication == "client_secret_basic")
            let names = Set(record.parameters.map(\.name))
            #expect(
                names.isSuperset(of: [
                    "response_type", "redirect_uri", "scope", "state", "nonce", "code_challenge",
                    "code_challenge_method", "prompt", "resource",
                ]))
            #expect(server.authorizationRequests.count == 1)
            #expect(Set(server.authorizationRequests[0].keys) == ["client_id", "request_uri"])
            #expect(server.pushedAuthorization.requestURIUses == [record.requestURI].compactMap { $0 })
            #expect(server.tokenRequests.first?.clientAuthentication == "client_secret_basic")
            #expect(FileManager.default.fileExists(atPath: stateFile))
        }
    }

    @Test("--no-par: the request goes in the URL although the server offers pushing")
    func optedOut() async throws {
        try await LocalAuthorizationServer.withServer { server in
            server.pushedAuthorization.update { $0.mode = .offered }
            let folder = try TemporaryFolder()
            let result = try await login(server, stateFile: folder.path + "/state.json", ["--no-par"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(server.pushedAuthorization.records.isEmpty)
            #expect(server.authorizationRequests.first?["code_challenge"] != nil)
            #expect(server.authorizationRequests.first?["request_uri"] == nil)
        }
    }

    @Test("required: --no-par is refused before any request to /authorize or /par, and nothing is saved")
    func requiredOptOut() async throws {
        try await LocalAuthorizationServer.withServer { server in
            server.pushedAuthorization.update { $0.mode = .required }
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/state.json"
            let result = try await login(server, stateFile: stateFile, ["--no-par"])
            #expect(result.status == 1, "stderr: \(result.stderr)")
            #expect(
                result.stderr.contains("the server requires pushed authorization requests"), "stderr: \(result.stderr)")
            #expect(server.pushedAuthorization.records.isEmpty)
            #expect(Self.authorizeQueries(server).isEmpty)
            #expect(!FileManager.default.fileExists(atPath: stateFile))
        }
    }

    @Test("required and a hostile push answer: exit 1 naming the field, no plain request, nothing saved")
    func requiredHostile() async throws {
        try await LocalAuthorizationServer.withServer { server in
            server.pushedAuthorization.update {
                $0.mode = .required
                $0.responseOverrides = ["expires_in": "1e9"]
            }
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/state.json"
            let result = try await login(server, stateFile: stateFile)
            #expect(result.status == 1, "stderr: \(result.stderr)")
            #expect(
                result.stderr.contains(
                    "push response whose 'expires_in' is 1000000000; it must be a whole number of seconds from 1 to 3600"
                ), "stderr: \(result.stderr)")
            #expect(server.pushedAuthorization.records.count == 1)
            #expect(Self.authorizeQueries(server).isEmpty, "no fallback to a plain request")
            #expect(!FileManager.default.fileExists(atPath: stateFile))
        }
    }

    @Test("offered and a hostile push answer: the sign-in falls back to the request in the URL")
    func offeredHostile() async throws {
        try await LocalAuthorizationServer.withServer { server in
            server.pushedAuthorization.update {
                $0.mode = .offered
                $0.responseOverrides = ["request_uri": ""]
            }
            let folder = try TemporaryFolder()
            let result = try await login(server, stateFile: folder.path + "/state.json", ["--json"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(server.pushedAuthorization.records.count == 1)
            #expect(server.authorizationRequests.first?["code_challenge"] != nil)
            #expect(server.authorizationRequests.first?["request_uri"] == nil)
            let line = try #require(result.stdout.split(separator: "\n").last)
            let output = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(
                output["par"] as? Bool == false && output["dpop"] as? Bool == false,
                "eua login --json: not pushed in the end")
        }
    }

    @Test(
        "a signed request object is pushed, with private_key_jwt at the push endpoint; repeated resources are an array in it"
    )
    func pushedRequestObject() async throws {
        let key = TestClientKey.p256()
        var options = LocalAuthorizationServerOptions()
        options.clientPublicKeys = [key.publicJWK]
        try await LocalAuthorizationServer.withServer(options) { server in
            server.pushedAuthorization.update { $0.mode = .required }
            let folder = try TemporaryFolder()
            let keyPath = folder.path + "/client-key.pem"
            try key.privateKeyPEM.write(toFile: keyPath, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyPath)
            let result = try await login(
                server, stateFile: folder.path + "/state.json",
                [
                    "--request-object", "--client-auth", "private_key_jwt", "--client-key", keyPath,
                    "--resource", "https://a.example/", "--resource", "https://b.example/",
                ])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let push = try #require(server.pushedAuthorization.records.first)
            #expect(push.clientAuthentication == "private_key_jwt" && push.refusal == nil)
            #expect(push.parameters.contains { $0.name == "request" })
            #expect(Set(server.authorizationRequests[0].keys) == ["client_id", "request_uri"])
            let record = try #require(server.requestObjects.first)
            #expect(record.refusal == nil)
            #expect(
                record.claims?["resource"] == .array([.string("https://a.example/"), .string("https://b.example/")]))
            #expect(server.tokenRequests.first?.values(of: "resource") == ["https://a.example/", "https://b.example/"])
        }
    }
}
