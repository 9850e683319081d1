// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentTesting
import Foundation
import Testing

/// `eua login --claims`, `--request-object` and the JWT client authentication methods, the built binary,
/// against the local authorization server, which checks what it receives and records it.
@Suite("eua login: claims, request objects, private_key_jwt and client_secret_jwt, end to end", .onOwnThreads)
struct ClientJWTLoginTests {
    /// Writes `key`'s private half to a file only this user may read.
    func keyFile(_ key: TestClientKey, in folder: TemporaryFolder, mode: Int = 0o600) throws -> String {
        let path = folder.path + "/client-key.pem"
        try key.privateKeyPEM.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    static func payload(ofJWT token: String) throws -> [String: Any] {
        var text = String(token.split(separator: ".")[1]).replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        let data = try #require(Data(base64Encoded: text))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("--claims is sent as the claims parameter; the server puts the essential claim in the ID token")
    func claimsParameter() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let claims = #"{"id_token": {"email_verified": {"essential": true}}, "userinfo": {"name": null}}"#
            let result = try await OIDCRun.login(
                server, stateFile: folder.path + "/s.json", extra: ["--claims", claims, "--json"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let sent = try #require(server.authorizationRequests.first?["claims"])
            let parsed = try #require(try JSONSerialization.jsonObject(with: Data(sent.utf8)) as? [String: Any])
            #expect(
                ((parsed["id_token"] as? [String: Any])?["email_verified"] as? [String: Any])?["essential"] as? Bool
                    == true)
            #expect((parsed["userinfo"] as? [String: Any])?.keys.contains("name") == true)
            let idToken = try #require(try OIDCRun.lastJSON(result.stdout)["id_token"] as? String)
            #expect(try Self.payload(ofJWT: idToken)["email_verified"] as? Bool == true)
        }
    }

    @Test(
        "--claims that is not §5.5's shape is a usage error naming the member",
        arguments: [
            (#"{"access_token": {}}"#, "only 'userinfo' and 'id_token' are defined"),
            (#"{"id_token": {"email": {"essential": "yes"}}}"#, "'id_token.email.essential' that is not true or false"),
            ("not json", "is not a JSON object"),
        ])
    func badClaims(json: String, says: String) async throws {
        let result = try await OIDCRun.eua([
            "login", "--issuer", "http://127.0.0.1:1", "--client-id", "c", "--claims", json,
        ])
        #expect(result.status == 64)
        #expect(result.stderr.contains(says), "stderr: \(result.stderr)")
    }

    @Test(
        "--request-object: every parameter in a JWT signed with the client key, checked by the server",
        arguments: [
            "ES256", "RS256",
        ])
    func requestObject(alg: String) async throws {
        let key = alg == "ES256" ? TestClientKey.p256() : try TestClientKey.rsa()
        var options = LocalAuthorizationServerOptions()
        options.clientPublicKeys = [key.publicJWK]
        try await LocalAuthorizationServer.withServer(options) { server in
            let folder = try TemporaryFolder()
            let claims = #"{"id_token": {"email_verified": null}}"#
            let result = try await OIDCRun.login(
                server, stateFile: folder.path + "/s.json",
                extra: [
                    "--request-object", "--client-key", try keyFile(key, in: folder),
                    "--claims", claims, "--json",
                ])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let record = try #require(server.requestObjects.first)
            #expect(record.refusal == nil && record.alg == alg && record.type == "oauth-authz-req+jwt")
            #expect(record.claims?["code_challenge_method"]?.stringValue == "S256")
            #expect(record.claims?["nonce"]?.stringValue != nil && record.claims?["state"]?.stringValue != nil)
            #expect(
                record.claims?["iss"]?.stringValue == server.options.clientID
                    && record.claims?["aud"]?.stringValue == server.issuer)
            let query = try #require(server.authorizationRequests.first)
            #expect(Set(query.keys) == ["client_id", "response_type", "scope", "request"], "\(query.keys)")
            #expect(record.claims?["scope"]?.stringValue == "openid email")
            guard case .object(let inner)? = record.claims?["claims"] else {
                Issue.record(
                    "the claims request is a JSON object in the request object: \(String(describing: record.claims?["claims"]))"
                )
                return
            }
            #expect(inner["id_token"] != nil)
            let idToken = try #require(try OIDCRun.lastJSON(result.stdout)["id_token"] as? String)
            #expect(
                try Self.payload(ofJWT: idToken)["email_verified"] as? Bool == true,
                "the server read the claims from the request object")
        }
    }

    @Test("--request-object without --client-key, and a key file others may read, are refused before any request")
    func requestObjectNeedsPrivateKey() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let missing = try await OIDCRun.login(
                server, stateFile: folder.path + "/s.json", extra: ["--request-object"])
            #expect(missing.status == 64)
            #expect(missing.stderr.contains("--request-object needs the client's private key: give --client-key FILE"))
            let open = try keyFile(.p256(), in: folder, mode: 0o644)
            let exposed = try await OIDCRun.login(
                server, stateFile: folder.path + "/s.json",
                extra: ["--request-object", "--client-key", open])
            #expect(exposed.status != 0)
            #expect(
                exposed.stderr.contains("client key file \(open): others may read or change it (mode 644)"),
                "stderr: \(exposed.stderr)")
            #expect(server.requestLog.isEmpty)
        }
    }

    @Test("private_key_jwt: the token requests carry an assertion signed with the client key, for the token endpoint")
    func privateKeyJWT() async throws {
        let key = try TestClientKey.rsa()
        var options = LocalAuthorizationServerOptions()
        options.clientPublicKeys = [key.publicJWK]
        try await LocalAuthorizationServer.withServer(options) { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            let path = try keyFile(key, in: folder)
            let result = try await OIDCRun.login(
                server, stateFile: stateFile,
                extra: ["--client-auth", "private_key_jwt", "--client-key", path])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let refreshed = try await OIDCRun.eua(["refresh", "--state-file", stateFile, "--client-key", path])
            #expect(refreshed.status == 0, "stderr: \(refreshed.stderr)")
            #expect(server.tokenRequests.map(\.clientAuthentication) == ["private_key_jwt", "private_key_jwt"])
            #expect(server.tokenRequests.allSatisfy { $0.refusal == nil && $0.clientSecret == nil })
            #expect(server.tokenRequests.first?.clientAssertionAudience == server.issuer + "/token")

            let withoutKey = try await OIDCRun.eua(["refresh", "--state-file", stateFile])
            #expect(withoutKey.status != 0)
            #expect(
                withoutKey.stderr.contains("private_key_jwt, which needs its private key"),
                "stderr: \(withoutKey.stderr)")
        }
    }

    @Test("private_key_jwt with a key the server does not know: refused as invalid_client, nothing saved")
    func privateKeyJWTUnknownKey() async throws {
        var options = LocalAuthorizationServerOptions()
        options.clientPublicKeys = [TestClientKey.p256().publicJWK]
        try await LocalAuthorizationServer.withServer(options) { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            let result = try await OIDCRun.login(
                server, stateFile: stateFile,
                extra: [
                    "--client-auth", "private_key_jwt", "--client-key",
                    try keyFile(.p256(), in: folder),
                ])
            #expect(result.status != 0)
            #expect(
                result.stderr.contains("invalid_client") && result.stderr.contains("signature does not verify"),
                "stderr: \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: stateFile))
        }
    }

    @Test("client_secret_jwt: an HS256 assertion made with the secret, which itself is never sent")
    func clientSecretJWT() async throws {
        try await LocalAuthorizationServer.withServer(.init(clientSecret: "s3cret-for-jwt")) { server in
            let folder = try TemporaryFolder()
            let result = try await OIDCRun.login(
                server, secret: "s3cret-for-jwt", stateFile: folder.path + "/s.json",
                extra: ["--client-auth", "client_secret_jwt"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let record = try #require(server.tokenRequests.first)
            #expect(
                record.clientAuthentication == "client_secret_jwt" && record.clientSecret == nil
                    && record.refusal == nil)
            #expect(server.requestLog.allSatisfy { $0.header("Authorization") == nil })
        }
    }
}
