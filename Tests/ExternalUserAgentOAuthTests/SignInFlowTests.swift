// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import ExternalUserAgentOAuth
import ExternalUserAgentTesting
import Foundation
import Synchronization
import Testing

/// ``SignInFlow``, the one sign-in the commands and apps call: discovery, the chain's choice, the
/// receiver with its options, the agent, the checks, the saved state — and what its hooks hear.
@Suite("SignInFlow: the whole sign-in in one call", .onOwnThreads)
struct SignInFlowTests {
    /// Configuration from code alone (no file, no variable).
    static func configuration(_ code: CodeConfiguration, named: String? = nil) throws -> Configuration {
        var code = code
        if let named {
            code.preference = [named]
            code.namedAgent = named
        }
        return try Configuration.load(
            sources: ConfigurationSources(
                environment: [:], systemFiles: [], userFile: nil,
                managedFile: nil), code: code)
    }

    /// What the hooks heard, in order.
    final class Heard: Sendable {
        let events = Mutex<[String]>([])
        let steps = Mutex<[SignInPlan.Step]>([])
        let codes = Mutex<[DeviceAuthorizationResponse]>([])
        let polls = Mutex<[DeviceAuthorization.PollEvent]>([])

        var hooks: SignInFlow.Hooks {
            SignInFlow.Hooks(
                discovered: { [self] service in events.withLock { $0.append("discovered \(service.issuer)") } },
                stepChosen: { [self] step in
                    steps.withLock { $0.append(step) }
                    events.withLock { $0.append("step \(step.step)") }
                },
                progress: { [self] progress in
                    let name =
                        switch progress {
                        case .receiverStarted: "receiverStarted"
                        case .authorizationRequestPushed: "pushed"
                        case .presented: "presented"
                        case .authorizationResponseAccepted: "accepted"
                        case .tokensReceived: "tokens"
                        case .idTokenValidated: "idToken"
                        case .saved: "saved"
                        case .callbackRefused: "refused"
                        }
                    events.withLock { $0.append(name) }
                },
                deviceCodes: { [self] response in codes.withLock { $0.append(response) } },
                devicePoll: { [self] event in polls.withLock { $0.append(event) } })
        }
    }

    /// A receiver source that records each time it is asked for a receiver, and with which options.
    final class ReceiverSpy: Sendable {
        let asked = Mutex<[[String: String]]>([])
        let entry: PluginReceiverEntry?

        init(_ entry: PluginReceiverEntry? = nil) { self.entry = entry }

        var receiver: SignInFlow.Receiver {
            SignInFlow.Receiver { [self] options in
                asked.withLock { $0.append(options) }
                guard let entry else { throw ExternalUserAgentError(.receiverFailed, "the spy has no receiver") }
                return entry.makeReceiver(options: options)
            }
        }
    }

    @Test("a named agent: the hooks hear discovery, the step and why, then every step in order; the state is saved")
    func namedAgent() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let file = AuthStateFile(path: folder.path + "/state.json")
            let catalog = try await BuiltPlugins.catalog()
            let heard = Heard()
            let flow = SignInFlow(
                issuer: server.issuer, client: ClientCredentials(clientID: server.options.clientID),
                scopes: ["openid", "email"],
                timeout: .seconds(20), file: file, candidates: AgentSelection.candidates(catalog: catalog),
                configuration: try Self.configuration(
                    CodeConfiguration(
                        allowTestAgents: true,
                        agentOptions: ["headless": ["mode": "follow"]]),
                    named: "headless"),
                receiver: .plugin(in: catalog), hooks: heard.hooks)
            let state = try await flow.run()
            #expect(await state.idTokenClaims?.subject == "alice")
            #expect(
                heard.events.withLock { $0 } == [
                    "discovered \(server.issuer)", "step browser", "receiverStarted",
                    "presented", "accepted", "tokens", "idToken", "saved",
                ])
            let step = try #require(heard.steps.withLock { $0 }.first)
            #expect(step.agent?.descriptor.id == "headless" && step.reason.contains("named explicitly"))
            let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }
    }

    @Test(
        "no browser agent and a device-capable server: the device step; codes and polls reach the hooks, no receiver is made"
    )
    func deviceStep() async throws {
        try await LocalAuthorizationServer.withServer { server in
            server.deviceAuthorization.update {
                $0.enabled = true
                $0.interval = 1
                $0.answers = [.pending]
            }
            let heard = Heard()
            let spy = ReceiverSpy()
            let flow = SignInFlow(
                issuer: server.issuer, client: ClientCredentials(clientID: server.options.clientID),
                timeout: .seconds(20), candidates: [], configuration: try Self.configuration(.init()),
                receiver: spy.receiver, hooks: heard.hooks)
            let state = try await flow.run()
            #expect(await state.idTokenClaims?.subject == "alice")
            let step = try #require(heard.steps.withLock { $0 }.first)
            #expect(step.step == .device && step.reason.contains("device_authorization_endpoint"))
            #expect(heard.codes.withLock { $0 }.first?.verificationURI == server.issuer + "/device")
            #expect(heard.polls.withLock { $0 } == [.pending(interval: .seconds(1))])
            #expect(heard.events.withLock { $0 } == ["discovered \(server.issuer)", "step device", "idToken"])
            #expect(spy.asked.withLock { $0 }.isEmpty, "the device grant needs no redirect receiver")
        }
    }

    @Test("a named agent that cannot be used is refused before any request reaches the server")
    func unusableNamedAgent() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let catalog = try await BuiltPlugins.catalog()
            let flow = SignInFlow(
                issuer: server.issuer, client: ClientCredentials(clientID: server.options.clientID),
                candidates: AgentSelection.candidates(catalog: catalog),
                configuration: try Self.configuration(.init(), named: "headless"),
                receiver: .plugin(in: catalog))
            await #expect {
                try await flow.run()
            } throws: { error in
                let error = error as? ExternalUserAgentError
                return error?.code == .noAgentAvailable && error?.message.contains("EUA_ALLOW_TEST_AGENTS=1") == true
            }
            #expect(server.requestLog.isEmpty, "not even discovery was asked")
        }
    }

    @Test("startDiscovery: the metadata is read before run() and once; run() waits for that read")
    func discoveryStartedAhead() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let catalog = try await BuiltPlugins.catalog()
            let heard = Heard()
            var flow = SignInFlow(
                issuer: server.issuer, client: ClientCredentials(clientID: server.options.clientID),
                timeout: .seconds(20),
                candidates: [],
                configuration: try Self.configuration(
                    CodeConfiguration(
                        allowTestAgents: true,
                        agentOptions: ["headless": ["mode": "follow"]]), named: "headless"),
                receiver: ReceiverSpy().receiver, hooks: heard.hooks)
            try flow.startDiscovery()
            let deadline = ContinuousClock.now + .seconds(10)
            while !server.requestLog.contains(where: { $0.target.hasPrefix("/.well-known/") }),
                ContinuousClock.now < deadline
            {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(
                server.requestLog.map(\.target) == ["/.well-known/openid-configuration"], "read before run(), alone")
            // What an app does meanwhile: load its plugins.
            flow.candidates = AgentSelection.candidates(catalog: catalog)
            flow.receiver = .plugin(in: catalog)
            let state = try await flow.run()
            #expect(await state.idTokenClaims?.subject == "alice")
            #expect(
                server.requestLog.filter { $0.target.hasPrefix("/.well-known/") }.count == 1,
                "run() did not read it again")
            #expect(heard.events.withLock { $0 }.first == "discovered \(server.issuer)")
        }
    }

    @Test(
        "startDiscovery, then another issuer: run() reads the new issuer's metadata; a failed read ahead is thrown by run()"
    )
    func discoveryStartedAheadThenChanged() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let catalog = try await BuiltPlugins.catalog()
            let configuration = try Self.configuration(
                CodeConfiguration(
                    allowTestAgents: true,
                    agentOptions: ["headless": ["mode": "follow"]]),
                named: "headless")
            // Nothing listens on port 9 here: the read ahead fails, and run() says so.
            var unreachable = SignInFlow(
                issuer: "http://127.0.0.1:9", client: ClientCredentials(clientID: "c"),
                timeout: .seconds(10), candidates: AgentSelection.candidates(catalog: catalog),
                configuration: configuration, receiver: .plugin(in: catalog))
            try unreachable.startDiscovery()
            await #expect {
                try await unreachable.run()
            } throws: { error in
                let error = error as? ExternalUserAgentError
                return error?.code == .discoveryFailed
                    && error?.message.contains("http://127.0.0.1:9/.well-known/") == true
            }
            // The same flow pointed at a server that answers: the read started for the old issuer is not used.
            unreachable.issuer = server.issuer
            unreachable.client = ClientCredentials(clientID: server.options.clientID)
            let state = try await unreachable.run()
            #expect(await state.idTokenClaims?.subject == "alice")
            #expect(server.requestLog.filter { $0.target.hasPrefix("/.well-known/") }.count == 1)
        }
    }

    @Test("startDiscovery refuses, and sends nothing, what run() refuses before any request: HS256 without a secret")
    func discoveryNotStartedForALocalError() async throws {
        try await LocalAuthorizationServer.withServer { server in
            var client = ClientCredentials(clientID: server.options.clientID)
            client.idTokenAlgorithm = try IDTokenAlgorithm("HS256")
            var flow = SignInFlow(
                issuer: server.issuer, client: client, candidates: [],
                configuration: try Self.configuration(.init()), receiver: ReceiverSpy().receiver)
            #expect(throws: ExternalUserAgentError.self) { try flow.startDiscovery() }
            try await Task.sleep(for: .milliseconds(100))
            #expect(server.requestLog.isEmpty, "nothing was asked of the server")
        }
    }

    @Test("no step is possible: each step and why, and nothing is saved")
    func noStep() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let file = AuthStateFile(path: folder.path + "/state.json")
            let flow = SignInFlow(
                issuer: server.issuer, client: ClientCredentials(clientID: server.options.clientID),
                file: file, candidates: [], configuration: try Self.configuration(.init()),
                receiver: ReceiverSpy().receiver)
            await #expect {
                try await flow.run()
            } throws: { error in
                let error = error as? ExternalUserAgentError
                let message = error?.message ?? ""
                return error?.code == .noAgentAvailable && message.contains("each step of the chain was skipped")
                    && message.contains("browser: no browser agent is installed")
                    && message.contains("advertises no device_authorization_endpoint")
                    && message.contains("manual: no manual agent is installed")
            }
            #expect(!FileManager.default.fileExists(atPath: file.path))
        }
    }

    @Test("no receiver plugin: the browser step fails with receiverFailed naming the plugin; the agent is never shown")
    func missingReceiver() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let file = AuthStateFile(path: folder.path + "/state.json")
            let agent = FakeExternalUserAgent()
            let heard = Heard()
            let flow = SignInFlow(
                issuer: server.issuer, client: ClientCredentials(clientID: server.options.clientID),
                file: file, candidates: [AgentCandidate(agent: agent)],
                configuration: try Self.configuration(.init(allowTestAgents: true)),
                receiver: .plugin(in: PluginCatalog()), hooks: heard.hooks)
            await #expect {
                try await flow.run()
            } throws: { error in
                let error = error as? ExternalUserAgentError
                return error?.code == .receiverFailed
                    && error?.message.contains("no 'loopback' redirect receiver was found") == true
                    && error?.message.contains("libEUALoopback.so beside the program or on EUA_PLUGIN_PATH") == true
            }
            #expect(agent.record.presented.isEmpty)
            #expect(heard.steps.withLock { $0 }.isEmpty, "no step started")
            #expect(!FileManager.default.fileExists(atPath: file.path))
        }
    }

    @Test("receiver options: a port given to the flow replaces the configuration's port-range; the path is kept")
    func receiverOptions() throws {
        let configuration = try Self.configuration(
            CodeConfiguration(receiverPortRange: 8400...8410, receiverPath: "/cb"))
        var flow = SignInFlow(
            issuer: "http://127.0.0.1:1", client: ClientCredentials(clientID: "c"), candidates: [],
            configuration: configuration, receiver: ReceiverSpy().receiver)
        #expect(flow.effectiveReceiverOptions == ["port-range": "8400-8410", "path": "/cb"])
        flow.receiverOptions = ["port": "9000"]
        #expect(flow.effectiveReceiverOptions == ["port": "9000", "path": "/cb"])
        let fixed = try Self.configuration(CodeConfiguration(receiverPort: 8400))
        flow.configuration = fixed
        flow.receiverOptions = ["port-range": "9000-9001"]
        #expect(flow.effectiveReceiverOptions == ["port-range": "9000-9001"])
    }

    @Test(
        "the flow's receiver options reach the receiver: the redirect URI has the flow's port and the configured path")
    func receiverOptionsReachTheReceiver() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let catalog = try await BuiltPlugins.catalog()
            let loopback = try #require(catalog.receiver(id: "loopback"))
            let spy = ReceiverSpy(loopback)
            let port = try OIDCProviderMock.freePort()
            let configuration = try Self.configuration(
                CodeConfiguration(
                    allowTestAgents: true, agentOptions: ["headless": ["mode": "follow"]],
                    receiverPortRange: 1...2, receiverPath: "/cb"), named: "headless")
            let flow = SignInFlow(
                issuer: server.issuer, client: ClientCredentials(clientID: server.options.clientID),
                timeout: .seconds(20), candidates: AgentSelection.candidates(catalog: catalog),
                configuration: configuration, receiver: spy.receiver, receiverOptions: ["port": String(port)])
            _ = try await flow.run()
            #expect(spy.asked.withLock { $0 } == [["port": String(port), "path": "/cb"]])
            #expect(server.authorizationRequests.first?["redirect_uri"] == "http://127.0.0.1:\(port)/cb")
        }
    }

    @Test("SignIn.run(plan:) still signs in with the plan's agent and the caller's receiver")
    func runPlan() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let service = try await Discovery().configuration(issuer: server.issuer)
            let catalog = try await BuiltPlugins.catalog()
            let plan = SignInChain.plan(
                candidates: AgentSelection.candidates(catalog: catalog),
                configuration: try Self.configuration(.init(allowTestAgents: true), named: "headless"),
                service: service)
            let signIn = SignIn(
                configuration: service, client: ClientCredentials(clientID: server.options.clientID),
                timeout: .seconds(20))
            let state = try await signIn.run(plan: plan, agentOptions: ["mode": "follow"]) {
                catalog.receiver(id: "loopback")!.makeReceiver()
            }
            #expect(await state.idTokenClaims?.subject == "alice")
        }
    }
}
