// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import ExternalUserAgentOAuth
import ExternalUserAgentRules
import ExternalUserAgentTesting
import Foundation
import Testing

/// The sign-out API: ``EndSessionRequest``'s URL and rules, the metadata it reads, ``TokenRevocation``'s answers,
/// and ``SignOut`` against the local authorization server, in process.
@Suite("Sign-out: end-session request, revocation, SignOut")
struct SignOutTests {
    static let endpoints = ServiceConfiguration(
        issuer: "https://id.example.com", authorizationEndpoint: URL(string: "https://id.example.com/authorize")!,
        tokenEndpoint: URL(string: "https://id.example.com/token")!)

    static func withEndSession(_ endpoint: String) -> ServiceConfiguration {
        var configuration = endpoints
        configuration.endSessionEndpoint = URL(string: endpoint)
        return configuration
    }

    @Test(
        "the URL: client_id, post_logout_redirect_uri, state; the endpoint's own parameters kept but never the reserved ones"
    )
    func endSessionURL() throws {
        let request = try EndSessionRequest(
            configuration: Self.withEndSession("https://id.example.com/logout?tenant=a&state=stale&id_token_hint=old"),
            clientID: "my app", postLogoutRedirectURI: URL(string: "http://127.0.0.1:8400/out")!,
            additionalParameters: [("ui_locales", "fr")], state: "S")
        #expect(
            request.url.absoluteString == "https://id.example.com/logout?tenant=a&client_id=my+app"
                + "&post_logout_redirect_uri=http%3A%2F%2F127.0.0.1%3A8400%2Fout&state=S&ui_locales=fr")
        #expect(
            try EndSessionRequest(
                configuration: Self.withEndSession("https://id.example.com/logout"), clientID: "c",
                postLogoutRedirectURI: nil
            ).state.count == 43)
    }

    @Test(
        "id_token_hint cannot be added: a launched URL is broadcast on the session bus",
        arguments: [
            "id_token_hint", "client_id", "state", "post_logout_redirect_uri",
        ])
    func reservedParameters(name: String) {
        #expect(throws: ExternalUserAgentError.self) {
            try EndSessionRequest(
                configuration: Self.withEndSession("https://id.example.com/logout"), clientID: "c",
                postLogoutRedirectURI: nil, additionalParameters: [(name, "eyJhbGciOi.x.y")])
        }
    }

    @Test("a provider without end_session_endpoint: endSessionFailed, saying what to do")
    func noEndpoint() {
        do {
            _ = try EndSessionRequest(configuration: Self.endpoints, clientID: "c", postLogoutRedirectURI: nil)
            Issue.record("no error")
        } catch let error as ExternalUserAgentError {
            #expect(error.code == .endSessionFailed)
            #expect(
                error.message.contains("advertises no end_session_endpoint")
                    && error.message.contains("provider's own page"))
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test(
        "the post-logout redirect must carry the state once",
        arguments: [
            ("http://127.0.0.1:1/out?state=S", true), ("http://127.0.0.1:1/out?state=T", false),
            ("http://127.0.0.1:1/out", false), ("http://127.0.0.1:1/out?state=S&state=S", false),
            ("http://127.0.0.1:1/out?state=S%00", false),
        ])
    func callbackState(callback: String, accepted: Bool) throws {
        let request = try EndSessionRequest(
            configuration: Self.withEndSession("https://id.example.com/logout"), clientID: "c",
            postLogoutRedirectURI: URL(string: "http://127.0.0.1:1/out"), state: "S")
        let passed = (try? request.check(callback: URL(string: callback)!)) != nil
        #expect(passed == accepted)
    }

    @Test(
        "metadata: sign-out endpoints that are not http(s) URLs are treated as absent",
        arguments: [
            (#""javascript:alert(1)""#, false), (#""file:///etc/passwd""#, false), ("42", false), (#""""#, false),
            (#""https://""#, false), (#""https://id.example.com/logout""#, true),
        ])
    func hostileEndpoints(value: String, kept: Bool) throws {
        let json = """
            {"issuer":"https://id.example.com","authorization_endpoint":"https://id.example.com/a",
             "token_endpoint":"https://id.example.com/t","end_session_endpoint":\(value),"revocation_endpoint":\(value),
             "revocation_endpoint_auth_methods_supported":["none"]}
            """
        let configuration = try JSONDecoder().decode(ServiceConfiguration.self, from: Data(json.utf8))
        #expect((configuration.endSessionEndpoint != nil) == kept && (configuration.revocationEndpoint != nil) == kept)
        #expect(configuration.revocationEndpointAuthMethodsSupported == ["none"])
        let again = try JSONDecoder().decode(ServiceConfiguration.self, from: JSONEncoder().encode(configuration))
        #expect(again == configuration, "saved with the state and read back")
    }

    /// Signs alice in at `server` in process; the state is saved to `file`.
    static func signIn(_ server: LocalAuthorizationServer, file: AuthStateFile, secret: String? = nil) async throws
        -> AuthState
    {
        let service = try await Discovery().configuration(issuer: server.issuer)
        let signIn = SignIn(
            configuration: service, client: ClientCredentials(clientID: server.options.clientID, clientSecret: secret),
            scopes: ["openid"], timeout: .seconds(20), file: file)
        return try await signIn.run(
            agent: FakeExternalUserAgent(script: .signIn(at: server, as: "alice")),
            receiver: FakeRedirectReceiver())
    }

    @Test("SignOut revokes both tokens, ends the session at the server, and removes the state file")
    func wholeSignOut() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
                "eua-signout-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = AuthStateFile(path: folder.path + "/s.json")
            let state = try await Self.signIn(server, file: file)
            let tokens = try #require(await state.lastTokenResponse)

            let outcome = try await SignOut(state: state, timeout: .seconds(10))
                .run(
                    agent: FakeExternalUserAgent(script: .signOut(at: server)),
                    receiver: FakeRedirectReceiver(redirectURI: URL(string: "http://127.0.0.1:49152/signed-out")!))
            #expect(outcome.revoked == [.refreshToken, .accessToken] && outcome.revocationFailures.isEmpty)
            guard case .completed(let back) = outcome.endSession else {
                Issue.record("\(outcome.endSession)")
                return
            }
            #expect(back.absoluteString == "http://127.0.0.1:49152/signed-out")
            #expect(outcome.stateRemoved && !FileManager.default.fileExists(atPath: file.path))
            #expect(
                !server.isLiveRefreshToken(try #require(tokens.refreshToken))
                    && !server.isLiveAccessToken(tokens.accessToken))
            let recorded = try #require(server.endSessions.first)
            #expect(
                recorded.parameters["client_id"] == server.options.clientID
                    && recorded.parameters["id_token_hint"] == nil)
            #expect(
                recorded.redirectedTo
                    == "http://127.0.0.1:49152/signed-out?state=\(recorded.parameters["state"] ?? "-")")
            // The revoked refresh token is refused at the token endpoint now.
            let endpoint = TokenEndpoint(configuration: state.configuration, client: state.client)
            do {
                _ = try await endpoint.refresh(refreshToken: try #require(tokens.refreshToken))
                Issue.record("the revoked refresh token still works")
            } catch let error as ExternalUserAgentError {
                #expect((error.underlying as? OAuthErrorResponse)?.error == "invalid_grant")
            }
        }
    }

    @Test(
        "the local end-session endpoint: id_token_hint checked (GET and POST), post_logout_redirect_uri against the registered ones"
    )
    func localEndSessionEndpoint() async throws {
        try await LocalAuthorizationServer.withServer { server in
            server.update { $0.postLogoutRedirectURIs = ["http://127.0.0.1/out"] }
            let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
                "eua-signout-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let state = try await Self.signIn(server, file: AuthStateFile(path: folder.path + "/s.json"))
            let idToken = try #require(await state.lastTokenResponse?.idToken)
            func url(_ query: String) -> URL { URL(string: server.issuer + "/end_session?" + query)! }
            let back = FormCoding.escape("http://127.0.0.1:4000/out")

            // GET with a real ID token, no client_id: redirected with the state, the hint noted as in the URL.
            let redirected = try server.signOut(
                endSessionURL: url("id_token_hint=\(idToken)&post_logout_redirect_uri=\(back)&state=S"))
            #expect(redirected.absoluteString == "http://127.0.0.1:4000/out?state=S")
            #expect(server.endSessions.last?.idTokenHintInURL == true)
            // Refusals: a forged hint, another client than the hint's, an unregistered URI, a redirect with no client.
            let refused: [(String, String)] = [
                (
                    "id_token_hint=eyJhbGciOiJub25lIn0.e30.&post_logout_redirect_uri=\(back)",
                    "id_token_hint is not an ID token this server issued"
                ),
                (
                    "id_token_hint=\(idToken)&client_id=other&post_logout_redirect_uri=\(back)",
                    "id_token_hint was issued to another client than client_id"
                ),
                (
                    "client_id=\(server.options.clientID)&post_logout_redirect_uri=\(FormCoding.escape("https://evil.example/out"))",
                    "post_logout_redirect_uri is not one the client registered"
                ),
                (
                    "client_id=\(server.options.clientID)&post_logout_redirect_uri=\(FormCoding.escape("http://127.0.0.1/out#x"))",
                    "post_logout_redirect_uri is not one the client registered"
                ),
                ("post_logout_redirect_uri=\(back)", "post_logout_redirect_uri needs client_id or id_token_hint"),
                ("client_id=nobody&post_logout_redirect_uri=\(back)", "unknown client_id"),
            ]
            for (query, reason) in refused {
                #expect(throws: ExternalUserAgentError.self) { try server.signOut(endSessionURL: url(query)) }
                #expect(server.endSessions.last?.refusal == reason, "\(query)")
            }
            // POST: the hint in the body, not the URL.
            let body = "id_token_hint=\(idToken)&post_logout_redirect_uri=\(back)&state=T"
            let connection = try RawConnection(port: server.port)
            defer { connection.close() }
            _ = connection.send(
                "POST /end_session HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nContent-Type: "
                    + "application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
            )
            #expect(connection.status() == 302)
            let posted = try #require(server.endSessions.last)
            #expect(
                posted.method == "POST" && !posted.idTokenHintInURL
                    && posted.redirectedTo == "http://127.0.0.1:4000/out?state=T")
        }
    }

    @Test(
        "the local revocation endpoint: an unknown token answers 200, a missing one 400, another client's is not revoked"
    )
    func localRevocationEndpoint() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let configuration = try await Discovery().configuration(issuer: server.issuer)
            let revocation = TokenRevocation(
                configuration: configuration, client: ClientCredentials(clientID: server.options.clientID))
            try await revocation.revoke("never-issued", kind: .accessToken)
            #expect(server.revocations.last?.revoked == nil && server.revocations.last?.refusal == nil)
            let http = OAuthHTTP()
            let missing = try await http.postForm(
                try #require(configuration.revocationEndpoint), fields: [("client_id", server.options.clientID)])
            #expect(missing.status == 400 && server.revocations.last?.refusal == "invalid_request")
            let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
                "eua-signout-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let state = try await Self.signIn(server, file: AuthStateFile(path: folder.path + "/s.json"))
            let refresh = try #require(await state.lastTokenResponse?.refreshToken)
            server.update { $0.clientID = "another-client" }
            try await TokenRevocation(
                configuration: configuration, client: ClientCredentials(clientID: "another-client")
            )
            .revoke(refresh, kind: .refreshToken)
            #expect(server.revocations.last?.revoked == nil, "a token of another client is not revoked (still 200)")
            #expect(server.isLiveRefreshToken(refresh))
        }
    }

    @Test(
        "a post-logout redirect with a forged state is turned away; the wait ends at the deadline; the state still goes"
    )
    func forgedState() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
                "eua-signout-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = AuthStateFile(path: folder.path + "/s.json")
            let state = try await Self.signIn(server, file: file)
            let agent = FakeExternalUserAgent(script: .redirect(parameters: ["state": "forged"]))
            let outcome = try await SignOut(state: state, timeout: .milliseconds(500)).run(
                agent: agent, receiver: FakeRedirectReceiver())
            guard case .failed(let error) = outcome.endSession else {
                Issue.record("\(outcome.endSession)")
                return
            }
            #expect(error.code == .timedOut)
            #expect(agent.record.deliveryErrors.first??.code == .stateMismatch)
            #expect(outcome.stateRemoved)
        }
    }

    @Test("revocation refused: revocationFailed with the server's error; keepsStateOnRevocationFailure keeps the file")
    func refusedRevocation() async throws {
        try await LocalAuthorizationServer.withServer(.init(clientID: "conf", clientSecret: "right")) { server in
            let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
                "eua-signout-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = AuthStateFile(path: folder.path + "/s.json")
            _ = try await Self.signIn(server, file: file, secret: "right")
            let loaded = try await AuthState.load(from: file, clientSecret: "wrong")
            var signOut = SignOut(state: loaded)
            signOut.endsSession = false
            signOut.keepsStateOnRevocationFailure = true
            let outcome = try await signOut.run(agent: nil, receiver: nil)
            #expect(outcome.revoked.isEmpty && outcome.revocationFailures.map(\.kind) == [.refreshToken, .accessToken])
            let failure = try #require(outcome.revocationFailures.first?.error)
            #expect(
                failure.code == .revocationFailed
                    && (failure.underlying as? OAuthErrorResponse)?.error == "invalid_client")
            #expect(failure.message.contains("(HTTP 401) with 'invalid_client': wrong or missing client secret"))
            #expect(outcome.stateKept && !outcome.stateRemoved && FileManager.default.fileExists(atPath: file.path))
            #expect(server.revocations.map(\.clientAuthentication) == ["client_secret_basic", "client_secret_basic"])
        }
    }

    @Test("a revocation endpoint that answers with hostile text: named, escaped, cut short; no token quoted")
    func hostileRevocationAnswer() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let configuration = try await Discovery().configuration(issuer: server.issuer)
            // An unknown client makes the server answer with its own error; the message must not carry the token.
            let revocation = TokenRevocation(
                configuration: configuration, client: ClientCredentials(clientID: "\u{1b}[31mnobody"))
            do {
                try await revocation.revoke("rt-secret-token-value", kind: .refreshToken)
                Issue.record("no error")
            } catch let error as ExternalUserAgentError {
                #expect(error.code == .revocationFailed)
                #expect(!error.message.contains("rt-secret-token-value") && !error.message.contains("\u{1b}"))
            }
            #expect(server.revocations.first?.refusal == "invalid_client")
            var without = configuration
            without.revocationEndpoint = nil
            await #expect(throws: ExternalUserAgentError.self) {
                try await TokenRevocation(configuration: without, client: ClientCredentials(clientID: "c")).revoke(
                    "t", kind: .accessToken)
            }
        }
    }

    @Test("AuthStateFile.remove deletes under the lock and says whether there was a state")
    func removeStateFile() async throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
            "eua-signout-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = AuthStateFile(path: folder.path + "/s.json", lockTimeout: .milliseconds(300))
        #expect(try await file.remove() == false)
        FileManager.default.createFile(atPath: file.path, contents: Data("{}".utf8))
        #expect(try await file.remove() == true)
        #expect(
            !FileManager.default.fileExists(atPath: file.path) && FileManager.default.fileExists(atPath: file.lockPath))
    }
}
