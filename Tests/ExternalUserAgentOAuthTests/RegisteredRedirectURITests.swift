// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import ExternalUserAgentOAuth
import ExternalUserAgentTesting
import Foundation
import Testing

/// The redirect URI as the user registered it: the loopback receiver listens at its host and path (and
/// port, when it names one), and the authorization and token requests carry the same text byte for byte.
@Suite("SignInFlow with a registered redirect URI", .onOwnThreads)
struct RegisteredRedirectURITests {
    static func configuration(_ code: CodeConfiguration = .init(), userFile: String? = nil) throws -> Configuration {
        var code = code
        code.allowTestAgents = true
        code.agentOptions = ["headless": ["mode": "follow"]]
        code.preference = ["headless"]
        code.namedAgent = "headless"
        return try Configuration.load(
            sources: ConfigurationSources(
                environment: [:], systemFiles: [], userFile: userFile,
                managedFile: nil), code: code)
    }

    static func flow(
        _ server: LocalAuthorizationServer, redirectURI: String?, configuration: Configuration? = nil,
        receiverOptions: [String: String] = [:]
    ) throws -> SignInFlow {
        let catalog = try BuiltPlugins.catalog()
        return SignInFlow(
            issuer: server.issuer, client: ClientCredentials(clientID: server.options.clientID),
            timeout: .seconds(20), candidates: AgentSelection.candidates(catalog: catalog),
            configuration: try configuration ?? Self.configuration(), receiver: .plugin(in: catalog),
            receiverOptions: receiverOptions, redirectURI: redirectURI)
    }

    /// The `redirect_uri` of the authorization request and of the token request, as the server recorded them.
    static func recorded(_ server: LocalAuthorizationServer) throws -> (authorization: String, token: String) {
        let authorization = try #require(server.authorizationRequests.first?["redirect_uri"])
        let token = try #require(server.tokenRequests.first?.redirectURI)
        return (authorization, token)
    }

    @Test("http://127.0.0.1/callback: a free port goes after the host; both requests carry the same text")
    func ipv4WithoutPort() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let state = try await Self.flow(server, redirectURI: "http://127.0.0.1/callback").run()
            #expect(await state.idTokenClaims?.subject == "alice")
            let (authorization, token) = try Self.recorded(server)
            #expect(authorization == token)
            #expect(authorization.hasPrefix("http://127.0.0.1:") && authorization.hasSuffix("/callback"))
            let port = try #require(Int(authorization.dropFirst("http://127.0.0.1:".count).dropLast("/callback".count)))
            #expect((1...65535).contains(port))
        }
    }

    @Test("http://127.0.0.1:PORT/cb: that port, and the registered text byte for byte")
    func ipv4WithPort() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let uri = "http://127.0.0.1:\(try OIDCProviderMock.freePort())/cb"
            _ = try await Self.flow(server, redirectURI: uri).run()
            let (authorization, token) = try Self.recorded(server)
            #expect(authorization == uri && token == uri)
        }
    }

    @Test("http://[::1]/cb: the receiver listens on [::1]; both requests carry http://[::1]:PORT/cb")
    func ipv6() async throws {
        try await LocalAuthorizationServer.withServer { server in
            _ = try await Self.flow(server, redirectURI: "http://[::1]/cb").run()
            let (authorization, token) = try Self.recorded(server)
            #expect(
                authorization == token && authorization.hasPrefix("http://[::1]:") && authorization.hasSuffix("/cb"))
        }
    }

    @Test("http://localhost/callback: allowed; both requests carry http://localhost:PORT/callback")
    func localhost() async throws {
        try await LocalAuthorizationServer.withServer { server in
            _ = try await Self.flow(server, redirectURI: "http://localhost/callback").run()
            let (authorization, token) = try Self.recorded(server)
            #expect(
                authorization == token && authorization.hasPrefix("http://localhost:")
                    && authorization.hasSuffix("/callback"))
        }
    }

    @Test("[login] redirect-uri from the configuration file is used, and replaces [receiver] path (with a warning)")
    func fromConfiguration() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let file = folder.path + "/config.toml"
            try "[receiver]\npath = \"/other\"\n[login]\nredirect-uri = \"http://127.0.0.1/from-file\"\n"
                .write(toFile: file, atomically: true, encoding: .utf8)
            let configuration = try Self.configuration(userFile: file)
            #expect(
                configuration.warnings.contains {
                    $0.message.contains("receiver.path") && $0.message.contains("is ignored")
                })
            _ = try await Self.flow(server, redirectURI: nil, configuration: configuration).run()
            let (authorization, token) = try Self.recorded(server)
            #expect(authorization == token && authorization.hasSuffix("/from-file"))
        }
    }

    @Test("a bad [login] redirect-uri is refused at load with file:line, the key and why")
    func badConfigurationValue() throws {
        let folder = try TemporaryFolder()
        let file = folder.path + "/config.toml"
        try "[login]\n\nredirect-uri = \"https://127.0.0.1/cb\"\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        #expect {
            _ = try Self.configuration(userFile: file)
        } throws: { error in
            let error = error as? ExternalUserAgentError
            return error?.code == .configurationInvalid && error?.message.contains("\(file):3") == true
                && error?.message.contains("login.redirect-uri") == true
                && error?.message.contains("it is https") == true
        }
    }

    @Test("precedence: the flow's redirect URI replaces the configuration's path, and its port the configured port")
    func precedence() throws {
        let configuration = try Self.configuration(CodeConfiguration(receiverPort: 8400, receiverPath: "/cb"))
        var flow = SignInFlow(
            issuer: "http://127.0.0.1:1", client: ClientCredentials(clientID: "c"), candidates: [],
            configuration: configuration, receiver: .plugin(in: PluginCatalog()),
            redirectURI: "http://127.0.0.1/callback")
        #expect(flow.effectiveReceiverOptions == ["port": "8400", "redirect-uri": "http://127.0.0.1/callback"])
        flow.redirectURI = "http://127.0.0.1:8500/callback"
        #expect(flow.effectiveReceiverOptions == ["redirect-uri": "http://127.0.0.1:8500/callback"])
        flow.redirectURI = nil
        #expect(flow.effectiveReceiverOptions == ["port": "8400", "path": "/cb"])
    }

    @Test("a redirect URI with a port and a port option too: invalidOptions before any request to the server")
    func conflictingPort() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let flow = try Self.flow(server, redirectURI: "http://127.0.0.1:8400/cb", receiverOptions: ["port": "8401"])
            await #expect {
                try await flow.run()
            } throws: { error in
                let error = error as? ExternalUserAgentError
                return error?.code == .invalidOptions && error?.message.contains("has the port 8400") == true
                    && error?.message.contains("8401") == true
            }
            #expect(server.requestLog.isEmpty)
        }
    }

    @Test(
        "a hostile redirect URI through the API: invalidOptions naming the problem, nothing sent",
        arguments: [
            ("http://evil.example/cb", "is not a loopback host"),
            ("http://127.0.0.1/cb#x", "fragment"),
            ("http://me@127.0.0.1/cb", "userinfo"),
            ("https://127.0.0.1/cb", "it is https"),
        ])
    func hostileRedirectURI(_ uri: String, _ says: String) async throws {
        try await LocalAuthorizationServer.withServer { server in
            let flow = try Self.flow(server, redirectURI: uri)
            await #expect {
                try await flow.run()
            } throws: { error in
                let error = error as? ExternalUserAgentError
                return error?.code == .invalidOptions && error?.message.contains(says) == true
            }
            #expect(server.requestLog.isEmpty)
        }
    }

    @Test(
        "the loopback plugin refuses a redirect-uri option that other options contradict, naming both",
        arguments: [
            (
                ["redirect-uri": "http://127.0.0.1/cb", "path": "/other"],
                "give redirect-uri=http://127.0.0.1/cb or path=/other, not both"
            ),
            (
                ["redirect-uri": "http://127.0.0.1:8400/cb", "port": "8401"],
                "has the port 8400: give no port or port-range with it"
            ),
            (["redirect-uri": "http://[::1]/cb", "ipv6": "false"], "is an [::1] URI: ipv6=false contradicts it"),
            (["redirect-uri": "http://127.0.0.1/cb", "ipv6": "true"], "is not an [::1] URI: ipv6=true contradicts it"),
            (["redirect-uri": "http://10.1.2.3/cb"], "is not a loopback host"),
        ])
    func pluginOptionConflicts(_ options: [String: String], _ says: String) async throws {
        try await LocalAuthorizationServer.withServer { server in
            let service = try await Discovery().configuration(issuer: server.issuer)
            let catalog = try await BuiltPlugins.catalog()
            let agent = FakeExternalUserAgent()
            let receiver = try #require(catalog.receiver(id: "loopback")).makeReceiver(options: options)
            await #expect {
                try await SignIn(
                    configuration: service, client: ClientCredentials(clientID: server.options.clientID),
                    timeout: .seconds(10)
                ).run(agent: agent, receiver: receiver)
            } throws: { error in
                (error as? ExternalUserAgentError)?.message.contains(says) == true
            }
            #expect(agent.record.presented.isEmpty)
        }
    }

    @Test("SignIn with a registered URI refuses a receiver that listens elsewhere, before the agent is shown anything")
    func receiverElsewhere() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let service = try await Discovery().configuration(issuer: server.issuer)
            let catalog = try await BuiltPlugins.catalog()
            let agent = FakeExternalUserAgent()
            var signIn = SignIn(
                configuration: service, client: ClientCredentials(clientID: server.options.clientID),
                timeout: .seconds(10))
            signIn.redirectURI = "http://127.0.0.1/callback"
            let receiver = try #require(catalog.receiver(id: "loopback")).makeReceiver(options: ["path": "/elsewhere"])
            await #expect {
                try await signIn.run(agent: agent, receiver: receiver)
            } throws: { error in
                let error = error as? ExternalUserAgentError
                return error?.code == .invalidOptions
                    && error?.message.contains("not at the registered redirect URI") == true
            }
            #expect(agent.record.presented.isEmpty)
            #expect(server.authorizationRequests.isEmpty)
        }
    }
}
