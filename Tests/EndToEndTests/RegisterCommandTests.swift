// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentTesting
import Foundation
import Testing

/// `eua register` (RFC 7591, OpenID Connect Registration) and `eua login` with the registered client, the
/// built binary, against the local authorization server's registration endpoint.
@Suite("eua register, end to end", .onOwnThreads)
struct RegisterCommandTests {
    func register(_ server: LocalAuthorizationServer, stateFile: String, extra: [String] = []) async throws
        -> ProcessResult
    {
        try await OIDCRun.eua(
            [
                "register", "--issuer", server.issuer, "--redirect-uri", "http://127.0.0.1/cb",
                "--client-name", "eua test", "--state-file", stateFile,
            ] + extra)
    }

    /// `eua login` without `--client-id`.
    func login(_ server: LocalAuthorizationServer, stateFile: String, extra: [String] = []) async throws
        -> ProcessResult
    {
        try await OIDCRun.eua(
            [
                "login", "--issuer", server.issuer, "--scope", "openid email", "--agent", "headless",
                "--agent-option", "mode=follow", "--timeout", "30", "--state-file", stateFile,
            ] + extra)
    }

    @Test(
        "a native public client: registered as asked, kept 0600 beside the state, and used by login without --client-id"
    )
    func publicClient() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/eua/s.json"
            let result = try await register(server, stateFile: stateFile, extra: ["--json"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let output = try OIDCRun.lastJSON(result.stdout)
            let clientID = try #require(output["client_id"] as? String)
            #expect(output["registration_file"] as? String == stateFile + ".client.json")
            let registered = try #require(server.registeredClients[clientID])
            #expect(registered.applicationType == "native")
            #expect(registered.tokenEndpointAuthMethod == "none")
            #expect(registered.redirectURIs == ["http://127.0.0.1/cb"])
            #expect(registered.request["client_name"]?.stringValue == "eua test")
            #expect(registered.request["response_types"] == .array([.string("code")]))
            let mode =
                try FileManager.default.attributesOfItem(atPath: stateFile + ".client.json")[.posixPermissions] as? Int
            #expect(mode == 0o600)
            #expect(
                !result.stdout.contains(registered.registrationAccessToken)
                    && !result.stderr.contains(registered.registrationAccessToken))

            let login = try await login(server, stateFile: stateFile)
            #expect(login.status == 0, "stderr: \(login.stderr)")
            #expect(login.stdout.contains("as alice"))
            #expect(server.tokenRequests.first?.clientID == clientID)
            #expect(server.tokenRequests.first?.clientAuthentication == "none")
            let redirect = try #require(server.authorizationRequests.first?["redirect_uri"])
            #expect(
                redirect.hasPrefix("http://127.0.0.1:") && redirect.hasSuffix("/cb"), "the registered path: \(redirect)"
            )
        }
    }

    @Test("a confidential client: its secret is kept (never shown) and used by login and refresh")
    func confidentialClient() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            let result = try await register(
                server, stateFile: stateFile, extra: ["--client-auth", "client_secret_post"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let registered = try #require(server.registeredClients.values.first)
            let secret = try #require(registered.clientSecret)
            #expect(result.stdout.contains("Registered client \(registered.clientID)"))

            let login = try await login(server, stateFile: stateFile)
            #expect(login.status == 0, "stderr: \(login.stderr)")
            let refresh = try await OIDCRun.eua(["refresh", "--state-file", stateFile])
            #expect(refresh.status == 0, "stderr: \(refresh.stderr)")
            #expect(server.tokenRequests.map(\.clientAuthentication) == ["client_secret_post", "client_secret_post"])
            #expect(server.tokenRequests.allSatisfy { $0.clientSecret == secret && $0.refusal == nil })
            for output in [result.stdout, result.stderr, login.stdout, login.stderr, refresh.stdout, refresh.stderr] {
                #expect(!output.contains(secret) && !output.contains(registered.registrationAccessToken))
            }
            let state = try String(contentsOfFile: stateFile, encoding: .utf8)
            #expect(!state.contains(secret), "the state file never holds the secret")
        }
    }

    @Test(
        "a client registered with id_token_signed_response_alg none signs in with unsigned ID tokens (rp-id_token-sig-none)"
    )
    func registeredUnsigned() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            let result = try await register(server, stateFile: stateFile, extra: ["--id-token-alg", "none"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(server.registeredClients.values.first?.idTokenSignedResponseAlg == "none")
            let login = try await login(server, stateFile: stateFile)
            #expect(login.status == 0, "stderr: \(login.stderr)")
            #expect(try #require(try OIDCRun.savedTokens(stateFile)["id_token"] as? String).hasSuffix("."))
        }
    }

    @Test(
        "redirect URIs a native client may not use are refused before any request",
        arguments: [
            ("https://app.example.com/cb", "is https"),
            ("http://example.com/cb", "is http on another host than the loopback"),
            ("myapp:/cb", "a private-use scheme is a reversed domain name"),
            ("http://127.0.0.1/cb#frag", "has a fragment"),
        ])
    func refusedRedirectURI(uri: String, says: String) async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            let result = try await OIDCRun.eua([
                "register", "--issuer", server.issuer, "--redirect-uri", uri,
                "--state-file", stateFile,
            ])
            #expect(result.status != 0)
            #expect(
                result.stderr.contains(says) && result.stderr.contains("invalidOptions"), "stderr: \(result.stderr)")
            #expect(server.requestLog.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: stateFile + ".client.json"))
        }
    }

    @Test("a private-use scheme redirect URI is registered")
    func privateUseScheme() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let result = try await OIDCRun.eua([
                "register", "--issuer", server.issuer, "--redirect-uri", "com.example.app:/cb",
                "--state-file", folder.path + "/s.json",
            ])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(server.registeredClients.values.first?.redirectURIs == ["com.example.app:/cb"])
        }
    }

    @Test("login without --client-id: no registration, or one for another issuer, is a clear error")
    func loginWithoutRegistration() async throws {
        try await LocalAuthorizationServer.withServer { server in
            try await LocalAuthorizationServer.withServer { other in
                let folder = try TemporaryFolder()
                let stateFile = folder.path + "/s.json"
                let none = try await login(server, stateFile: stateFile)
                #expect(none.status != 0)
                #expect(
                    none.stderr.contains(
                        "no --client-id given, and no client registered for this state in \(stateFile).client.json")
                        && none.stderr.contains("eua register --issuer \(server.issuer)"), "stderr: \(none.stderr)")

                let registered = try await register(other, stateFile: stateFile)
                #expect(registered.status == 0, "stderr: \(registered.stderr)")
                let mismatch = try await login(server, stateFile: stateFile)
                #expect(mismatch.status != 0)
                #expect(
                    mismatch.stderr.contains("is for \(other.issuer), not \(server.issuer)"),
                    "stderr: \(mismatch.stderr)")
                #expect(server.tokenRequests.isEmpty && !FileManager.default.fileExists(atPath: stateFile))
            }
        }
    }

    @Test("a registration file others may read is refused, not used")
    func registrationFileMode() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            #expect(try await register(server, stateFile: stateFile).status == 0)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: stateFile + ".client.json")
            let login = try await login(server, stateFile: stateFile)
            #expect(login.status != 0)
            #expect(
                login.stderr.contains("others may read or change it (mode 644)")
                    && login.stderr.contains("stateFileInvalid"),
                "stderr: \(login.stderr)")
            #expect(server.tokenRequests.isEmpty)
        }
    }

    @Test("a refusal wrapped in HTML: the page's words (no tags, no script), the status, nothing saved")
    func htmlRefusal() async throws {
        var options = LocalAuthorizationServerOptions()
        options.misbehaviors = [.registrationEndpointHTML]
        try await LocalAuthorizationServer.withServer(options) { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            let result = try await register(server, stateFile: stateFile)
            #expect(result.status != 0)
            #expect(
                result.stderr.contains(
                    "the registration endpoint \(server.issuer)/register refused the client (HTTP 403), "
                        + "saying: 403 Forbidden Forbidden Dynamic registration is closed for this realm: ask the administrator's desk "
                        + "& try again."), "stderr: \(result.stderr)")
            #expect(!result.stderr.contains("<") && !result.stderr.contains("var x"), "stderr: \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: stateFile + ".client.json"))
        }
    }

    @Test("a provider without a registration endpoint: a clear error, nothing saved")
    func noRegistrationEndpoint() async throws {
        var options = LocalAuthorizationServerOptions()
        options.offersRegistration = false
        try await LocalAuthorizationServer.withServer(options) { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            let result = try await register(server, stateFile: stateFile)
            #expect(result.status != 0)
            #expect(
                result.stderr.contains("offers no dynamic registration (no registration_endpoint in its metadata)")
                    && result.stderr.contains("registrationFailed"), "stderr: \(result.stderr)")
            #expect(!server.requestLog.contains { $0.method == "POST" })
            #expect(!FileManager.default.fileExists(atPath: stateFile + ".client.json"))
        }
    }

    @Test("a private_key_jwt client registers its public key as jwks and signs in with the private one")
    func privateKeyJWTClient() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            let key = TestClientKey.p256(kid: "mine")
            let keyFile = folder.path + "/key.pem"
            try key.privateKeyPEM.write(toFile: keyFile, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile)
            let result = try await register(
                server, stateFile: stateFile,
                extra: [
                    "--client-auth", "private_key_jwt", "--client-key", keyFile, "--userinfo-alg", "RS256",
                    "--contact", "ops@example.com",
                ])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let registered = try #require(server.registeredClients.values.first)
            #expect(registered.tokenEndpointAuthMethod == "private_key_jwt" && registered.clientSecret == nil)
            guard case .object(let sent)? = registered.publicKeys.first, case .object(let made) = key.publicJWK else {
                Issue.record("no public key was registered: \(registered.request)")
                return
            }
            #expect(sent["x"] == made["x"] && sent["y"] == made["y"] && sent["d"] == nil)
            #expect(sent["kid"] == nil, "a PEM file names no key id")
            #expect(registered.request["userinfo_signed_response_alg"]?.stringValue == "RS256")
            #expect(registered.request["contacts"] == .array([.string("ops@example.com")]))
            #expect(!(try String(contentsOfFile: stateFile + ".client.json", encoding: .utf8)).contains("PRIVATE"))

            let login = try await login(server, stateFile: stateFile, extra: ["--client-key", keyFile])
            #expect(login.status == 0, "stderr: \(login.stderr)")
            #expect(server.tokenRequests.first?.clientAuthentication == "private_key_jwt")
            #expect(server.tokenRequests.first?.refusal == nil)
        }
    }
}
