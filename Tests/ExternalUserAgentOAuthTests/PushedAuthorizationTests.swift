// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
@testable import ExternalUserAgentOAuth
import ExternalUserAgentTesting
import Foundation
import Testing

@Suite("Pushed authorization requests (RFC 9126): the client's push and the local server's endpoint")
struct PushedAuthorizationTests {
    static func interpretError(status: Int = 201, _ body: String) -> ExternalUserAgentError? {
        do {
            _ = try PushedAuthorizationRequest.interpret(
                status: status, body: Data(body.utf8), endpoint: "https://id/par")
            return nil
        } catch {
            return error as? ExternalUserAgentError
        }
    }

    @Test("a valid answer, 201 or 200")
    func valid() throws {
        let response = try PushedAuthorizationRequest.interpret(
            status: 201, body: Data(#"{"request_uri":"urn:ietf:params:oauth:request_uri:abc","expires_in":60}"#.utf8),
            endpoint: "https://id/par")
        #expect(response == .init(requestURI: "urn:ietf:params:oauth:request_uri:abc", expiresIn: 60))
        #expect(
            try PushedAuthorizationRequest.interpret(
                status: 200, body: Data(#"{"request_uri":"u","expires_in":"5"}"#.utf8),
                endpoint: "e"
            ).expiresIn == 5)
    }

    @Test(
        "hostile answers are refused naming the field, never trapping",
        arguments: [
            (
                #"{"request_uri":"urn:x","expires_in":1e9}"#,
                "'expires_in' is 1000000000; it must be a whole number of seconds from 1 to 3600"
            ),
            (#"{"request_uri":"urn:x","expires_in":0}"#, "'expires_in' is 0;"),
            (#"{"request_uri":"urn:x","expires_in":-1e300}"#, "'expires_in' is -1e+300;"),
            (#"{"request_uri":"urn:x"}"#, "'expires_in' is missing"),
            (#"{"request_uri":"","expires_in":60}"#, "'request_uri' is empty"),
            (#"{"request_uri":5,"expires_in":60}"#, "'request_uri' is the number 5, not a string"),
            (
                #"{"request_uri":"urn:x y","expires_in":60}"#,
                "'request_uri' is longer than 2048 characters or has characters"
            ),
            (#"{"request_uri":"urn:\u0001","expires_in":60}"#, "characters outside printable ASCII"),
            (#"{"request_uri":"urn:\#(String(repeating: "a", count: 2100))","expires_in":60}"#, "longer than 2048"),
            (#"[1,2]"#, "a body that is not a JSON object"),
        ])
    func hostile(_ body: String, _ says: String) {
        let error = Self.interpretError(body)
        #expect(error?.code == .presentationFailed)
        #expect(error?.message.contains(says) == true, "\(error?.message ?? "accepted")")
    }

    @Test("an OAuth error is oauthError with its code; another status is presentationFailed")
    func refusals() {
        let refused = Self.interpretError(status: 400, #"{"error":"invalid_request","error_description":"no"}"#)
        #expect(refused?.code == .oauthError)
        #expect(refused?.message.contains("invalid_request") == true)
        let broken = Self.interpretError(status: 500, "<html>")
        #expect(broken?.code == .presentationFailed)
        #expect(broken?.message.contains("HTTP 500") == true)
    }

    @Test(
        "which failed pushes end the sign-in (the server judged the request) and which fall back to the URL",
        arguments: [
            (400, #"{"error":"invalid_request","error_description":"unknown redirect_uri"}"#, true),
            (401, #"{"error":"invalid_client"}"#, true),
            (403, "", true),
            (400, "<html>bad request</html>", true),
            (422, "", true),
            (503, #"{"error":"temporarily_unavailable"}"#, false),
            (500, #"{"error":"server_error"}"#, false),
            (500, "<html>", false),
            (404, "not found", false),
            (405, "", false),
            (408, "", false),
            (429, "", false),
        ])
    func judged(_ status: Int, _ body: String, _ ends: Bool) throws {
        let error = try #require(Self.interpretError(status: status, body))
        #expect(SignIn.judgedRequest(error) == ends, "HTTP \(status) \(body): \(error.message)")
        #expect(error.message.contains("HTTP \(status)"))
        if body.isEmpty { #expect((error.underlying as? PushedAuthorizationRequest.Refusal)?.status == status) }
    }

    @Test("a refused push ends the sign-in before the agent is shown; a push with no answer falls back to the URL")
    func refusedPushEndsSignIn() async throws {
        try await LocalAuthorizationServer.withServer(.init(clientSecret: "s3cret")) { server in
            server.pushedAuthorization.update { $0.mode = .offered }
            let configuration = try await Discovery().configuration(issuer: server.issuer)
            let signIn = SignIn(
                configuration: configuration,
                client: ClientCredentials(clientID: "test-client", clientSecret: "wrong"), scopes: ["openid"])
            let agent = FakeExternalUserAgent(script: .signIn(at: server, as: "alice"))
            await #expect { try await signIn.run(agent: agent, receiver: FakeRedirectReceiver()) } throws: { error in
                let error = error as? ExternalUserAgentError
                return error?.code == .oauthError && error?.message.contains("invalid_client") == true
            }
            #expect(agent.record.presented.isEmpty, "no agent was shown the request")
            #expect(server.authorizationRequests.isEmpty)

            var unreachable = configuration
            unreachable.pushedAuthorizationRequestEndpoint = URL(string: "http://127.0.0.1:9/par")!
            let fallback = try await SignIn(configuration: unreachable, client: ClientCredentials(clientID: "app"))
                .pushed(
                    URL(string: "https://id.example/authorize?client_id=app&state=s")!,
                    client: ClientCredentials(clientID: "app"), http: OAuthHTTP(), logger: .init(label: "test"))
            #expect(fallback.query == "client_id=app&state=s", "no answer: the request in the URL")
        }
    }

    @Test("whether to push: offered, turned off, required, required without an endpoint")
    func decision() throws {
        var configuration = exampleConfiguration
        var signIn = SignIn(configuration: configuration, client: ClientCredentials(clientID: "app"))
        #expect(try signIn.pushDecision() == false, "no endpoint: no push")
        configuration.pushedAuthorizationRequestEndpoint = URL(string: "https://id.example.com/par")
        signIn.configuration = configuration
        #expect(try signIn.pushDecision() == true)
        signIn.usesPushedAuthorization = false
        #expect(try signIn.pushDecision() == false)
        configuration.requirePushedAuthorizationRequests = true
        signIn.configuration = configuration
        #expect(throws: ExternalUserAgentError.self) { try signIn.pushDecision() }
        configuration.pushedAuthorizationRequestEndpoint = nil
        signIn.configuration = configuration
        signIn.usesPushedAuthorization = true
        #expect(throws: ExternalUserAgentError.self) { try signIn.pushDecision() }
    }

    /// `GET target` on the server; the status.
    static func get(_ server: LocalAuthorizationServer, _ target: String) throws -> (Int, String) {
        let connection = try RawConnection(port: server.port)
        defer { connection.close() }
        _ = connection.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        let response = connection.readAll()
        return (RawConnection.status(of: response), response)
    }

    @Test(
        "the server: a request_uri works once, with basic authentication; the pushed parameters are what /authorize uses"
    )
    func oneTime() async throws {
        try await LocalAuthorizationServer.withServer(.init(clientSecret: "s3cret")) { server in
            server.pushedAuthorization.update { $0.mode = .offered }
            let configuration = try await Discovery().configuration(issuer: server.issuer)
            #expect(configuration.pushedAuthorizationRequestEndpoint?.absoluteString == server.issuer + "/par")
            #expect(configuration.requirePushedAuthorizationRequests == false)
            let client = try ClientCredentials(clientID: "test-client", clientSecret: "s3cret").negotiated(
                with: configuration)
            let request = try AuthorizationRequest(
                configuration: configuration, clientID: "test-client", scopes: ["openid"],
                redirectURI: URL(string: "http://127.0.0.1:9/cb")!,
                additionalParameters: [("login_hint", "bob")])
            let (url, response) = try await PushedAuthorizationRequest(configuration: configuration, client: client)
                .push(request.url, signed: false)
            #expect(response.expiresIn == 60)
            let query = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems)
            #expect(query.map(\.name) == ["client_id", "request_uri"])
            let record = try #require(server.pushedAuthorization.records.first)
            #expect(record.clientAuthentication == "client_secret_basic")
            #expect(record.parameters.first { $0.name == "state" }?.value == request.state)
            #expect(record.parameters.first { $0.name == "login_hint" }?.value == "bob")
            #expect(!record.parameters.contains { $0.name == "client_secret" })
            let target = "/authorize?" + (url.query ?? "")
            let first = try Self.get(server, target)
            #expect(first.0 == 302, "\(first.1)")
            #expect(first.1.contains("state=\(request.state)"), "the pushed state comes back")
            let again = try Self.get(server, target)
            #expect(again.0 == 400)
            #expect(again.1.contains("request_uri already used"))
            #expect(server.pushedAuthorization.requestURIUses == [response.requestURI, response.requestURI])
        }
    }

    @Test("the server: an expired request_uri, an unknown one, a wrong secret, and a plain request when required")
    func refusedByServer() async throws {
        try await LocalAuthorizationServer.withServer(.init(clientSecret: "s3cret")) { server in
            server.pushedAuthorization.update {
                $0.mode = .required
                $0.lifetime = 1
            }
            let configuration = try await Discovery().configuration(issuer: server.issuer)
            #expect(configuration.requirePushedAuthorizationRequests)
            let request = try AuthorizationRequest(
                configuration: configuration, clientID: "test-client", scopes: ["openid"],
                redirectURI: URL(string: "http://127.0.0.1:9/cb")!)
            let plain = try Self.get(server, "/authorize?" + (request.url.query ?? ""))
            #expect(plain.0 == 400)
            #expect(plain.1.contains("requires pushed authorization requests"))
            let wrong = try ClientCredentials(clientID: "test-client", clientSecret: "wrong").negotiated(
                with: configuration)
            await #expect {
                try await PushedAuthorizationRequest(configuration: configuration, client: wrong).push(
                    request.url, signed: false)
            } throws: { ($0 as? ExternalUserAgentError)?.code == .oauthError && "\($0)".contains("invalid_client") }
            let client = try ClientCredentials(clientID: "test-client", clientSecret: "s3cret").negotiated(
                with: configuration)
            let (url, _) = try await PushedAuthorizationRequest(configuration: configuration, client: client)
                .push(request.url, signed: false)
            try await Task.sleep(for: .milliseconds(1500))
            let expired = try Self.get(server, "/authorize?" + (url.query ?? ""))
            #expect(expired.0 == 400)
            #expect(expired.1.contains("request_uri expired"))
            let unknown = try Self.get(server, "/authorize?client_id=test-client&request_uri=urn%3Anever")
            #expect(unknown.1.contains("unknown request_uri"))
        }
    }
}
