// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import ExternalUserAgentOAuth
import ExternalUserAgentTesting
import Foundation
import Synchronization
import Testing

/// A clock that never waits: each sleep is recorded and moves `now` to its deadline at once.
final class RecordingClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let state = Mutex<(now: Instant, sleeps: [Duration])>((Instant(offset: .zero), []))
    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .zero }
    /// Every pause asked for, in order.
    var sleeps: [Duration] { state.withLock { $0.sleeps } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.sleeps.append(state.now.duration(to: deadline))
            state.now = max(state.now, deadline)
        }
        await Task.yield()
    }
}

@Suite("device authorization grant (RFC 8628) against the local authorization server")
struct DeviceAuthorizationTests {
    /// Runs `body` with a local server whose device grant is on (with `change` made to it) and its discovered
    /// configuration; the server is stopped however `body` ends.
    func withStarted(
        _ change: (inout LocalDeviceAuthorization.Settings) -> Void,
        _ body: (LocalAuthorizationServer, ServiceConfiguration) async throws -> Void
    ) async throws {
        try await LocalAuthorizationServer.withServer { server in
            server.deviceAuthorization.update {
                $0.enabled = true
                change(&$0)
            }
            try await body(server, try await Discovery().configuration(issuer: server.issuer))
        }
    }

    func signIn(
        _ server: LocalAuthorizationServer, _ configuration: ServiceConfiguration,
        timeout: Duration? = nil
    ) -> SignIn {
        SignIn(
            configuration: configuration, client: ClientCredentials(clientID: server.options.clientID),
            scopes: ["openid", "email"], timeout: timeout)
    }

    @Test("discovery reads device_authorization_endpoint; a server without the grant has none")
    func discovery() async throws {
        try await withStarted({ _ in }) { server, configuration in
            #expect(
                configuration.deviceAuthorizationEndpoint?.absoluteString == server.issuer + "/device_authorization")
            try await LocalAuthorizationServer.withServer { plain in
                let plainConfiguration = try await Discovery().configuration(issuer: plain.issuer)
                #expect(plainConfiguration.deviceAuthorizationEndpoint == nil)
            }
        }
    }

    @Test("pending → slow_down → pending → success: pauses of 5, 5, 10, 10 s; the ID token is checked; an AuthState")
    func pendingSlowDownSuccess() async throws {
        try await withStarted({ $0.answers = [.pending, .slowDown, .pending] }) { server, configuration in
            let clock = RecordingClock()
            let shown = Mutex<DeviceAuthorizationResponse?>(nil)
            let events = Mutex<[DeviceAuthorization.PollEvent]>([])
            let state = try await signIn(server, configuration).runDevice(
                clock: clock, show: { codes in shown.withLock { $0 = codes } },
                onEvent: { event in events.withLock { $0.append(event) } })
            #expect(clock.sleeps == [.seconds(5), .seconds(5), .seconds(10), .seconds(10)])
            #expect(
                events.withLock { $0 } == [
                    .pending(interval: .seconds(5)), .slowDown(interval: .seconds(10)),
                    .pending(interval: .seconds(10)),
                ])
            #expect(server.deviceAuthorization.answered == [.pending, .slowDown, .pending, .approve])
            let codes = try #require(shown.withLock { $0 })
            #expect(codes.verificationURI == server.issuer + "/device")
            #expect(codes.verificationURIComplete?.contains(codes.userCode) == true)
            #expect(codes.instructions.contains(codes.userCode) && codes.instructions.contains(codes.verificationURI))
            #expect(!codes.instructions.contains(codes.deviceCode), "the device code is never shown")
            #expect(await state.isAuthorized)
            #expect(await state.idTokenClaims?.subject == "alice")
            let record = try #require(server.tokenRequests.last)
            #expect(record.grantType == DeviceAuthorization.grantType && record.clientAuthentication == "none")
        }
    }

    @Test("no interval from the server: 5 s, as RFC 8628 §3.2 says")
    func defaultInterval() async throws {
        try await withStarted({
            $0.interval = nil
            $0.answers = [.pending]
        }) { server, configuration in
            let clock = RecordingClock()
            _ = try await signIn(server, configuration).runDevice(clock: clock, show: { _ in })
            #expect(clock.sleeps == [.seconds(5), .seconds(5)])
        }
    }

    @Test("access_denied ends the sign-in as userCanceled, with the server's words")
    func denied() async throws {
        try await withStarted({ $0.answers = [.pending, .deny] }) { server, configuration in
            let clock = RecordingClock()
            let error = await #expect(throws: ExternalUserAgentError.self) {
                try await signIn(server, configuration).runDevice(clock: clock, show: { _ in })
            }
            #expect(error?.code == .userCanceled)
            #expect(error?.message.contains("The user said no") == true)
            #expect(clock.sleeps.count == 2)
        }
    }

    @Test("expired_token from the server ends it as timedOut")
    func expiredByServer() async throws {
        try await withStarted({ $0.answers = [.expire] }) { server, configuration in
            let error = await #expect(throws: ExternalUserAgentError.self) {
                try await signIn(server, configuration).runDevice(clock: RecordingClock(), show: { _ in })
            }
            #expect(error?.code == .timedOut)
            #expect(error?.message.contains("expired") == true)
        }
    }

    @Test("the codes' lifetime runs out on the client's clock: no poll after expires_in")
    func expiredByClock() async throws {
        try await withStarted({
            $0.expiresIn = 12
            $0.answers = Array(repeating: .pending, count: 10)
        }) { server, configuration in
            let clock = RecordingClock()
            let error = await #expect(throws: ExternalUserAgentError.self) {
                try await signIn(server, configuration).runDevice(clock: clock, show: { _ in })
            }
            #expect(error?.code == .timedOut)
            #expect(clock.sleeps == [.seconds(5), .seconds(5)])
            #expect(server.deviceAuthorization.answered.count == 2)
        }
    }

    @Test("the sign-in timeout is shorter than the codes' lifetime: it wins")
    func timeoutWins() async throws {
        try await withStarted({ $0.answers = Array(repeating: .pending, count: 10) }) { server, configuration in
            let clock = RecordingClock()
            let error = await #expect(throws: ExternalUserAgentError.self) {
                try await signIn(server, configuration, timeout: .seconds(7)).runDevice(clock: clock, show: { _ in })
            }
            #expect(error?.code == .timedOut)
            #expect(error?.message.contains("raise the timeout") == true)
            #expect(clock.sleeps == [.seconds(5)])
        }
    }

    @Test("cancelling the task ends the wait at once as programCanceled")
    func cancellable() async throws {
        try await withStarted({ $0.interval = 60 }) { server, configuration in
            let sign = signIn(server, configuration)
            let task = Task { try await sign.runDevice(clock: ContinuousClock(), show: { _ in }) }
            while server.deviceAuthorization.requestCount == 0 { try await Task.sleep(for: .milliseconds(10)) }
            let started = ContinuousClock.now
            task.cancel()
            let result = await task.result
            #expect(ContinuousClock.now - started < .seconds(5))
            #expect(result.failure.flatMap(ExternalUserAgentError.code(of:)) == .programCanceled)
            #expect(server.deviceAuthorization.answered.isEmpty)
        }
    }

    @Test("a server without the endpoint: a clear invalidOptions error")
    func noEndpoint() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let configuration = try await Discovery().configuration(issuer: server.issuer)
            let error = await #expect(throws: ExternalUserAgentError.self) {
                try await signIn(server, configuration).runDevice(clock: RecordingClock(), show: { _ in })
            }
            #expect(error?.code == .invalidOptions)
            #expect(error?.message.contains("device_authorization_endpoint") == true)
        }
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

@Suite("the sign-in chain: browser → device → manual")
struct SignInChainTests {
    static let service = ServiceConfiguration(
        issuer: "https://id.example", authorizationEndpoint: URL(string: "https://id.example/a")!,
        tokenEndpoint: URL(string: "https://id.example/t")!)
    static var deviceService: ServiceConfiguration {
        var service = Self.service
        service.deviceAuthorizationEndpoint = URL(string: "https://id.example/device")!
        return service
    }

    let browser = AgentCandidate(
        agent: FakeExternalUserAgent(id: "browser", kind: .externalBrowser),
        available: false, reasons: ["no display"])
    let availableBrowser = AgentCandidate(agent: FakeExternalUserAgent(id: "browser", kind: .externalBrowser))
    let manual = AgentCandidate(agent: FakeExternalUserAgent(id: "manual", kind: .manual))

    func plan(
        _ candidates: [AgentCandidate], _ service: ServiceConfiguration?, code: CodeConfiguration = .init(),
        forced: SignInStep? = nil
    ) throws -> SignInPlan {
        let configuration = try Configuration.load(
            sources: ConfigurationSources(
                environment: [:], systemFiles: [], userFile: nil,
                managedFile: nil),
            code: code)
        return SignInChain.plan(candidates: candidates, configuration: configuration, service: service, forced: forced)
    }

    @Test("a browser agent is available: browser; the other steps are not reached")
    func browserFirst() throws {
        let plan = try plan([availableBrowser, manual], Self.deviceService)
        #expect(plan.chosen?.step == .browser && plan.chosen?.agent?.descriptor.id == "browser")
        #expect(plan.steps.map(\.status) == [.chosen, .notReached, .notReached])
    }

    @Test("no browser, the server offers the device grant: device, and the browser step says why it was skipped")
    func device() throws {
        let plan = try plan([browser, manual], Self.deviceService)
        #expect(plan.chosen?.step == .device)
        #expect(plan.steps[0].status == .skipped && plan.steps[0].reason.contains("no display"))
    }

    @Test("no browser, no device grant: manual, and the device step names the missing metadata")
    func manualLast() throws {
        let plan = try plan([browser, manual], Self.service)
        #expect(plan.chosen?.step == .manual && plan.chosen?.agent?.descriptor.id == "manual")
        #expect(plan.steps[1].status == .skipped && plan.steps[1].reason.contains("device_authorization_endpoint"))
    }

    @Test("flow-order from the configuration changes the order; a step left out is never used")
    func order() throws {
        let manualFirst = try plan(
            [availableBrowser, manual], Self.deviceService,
            code: CodeConfiguration(flowOrder: ["manual", "browser"]))
        #expect(manualFirst.chosen?.step == .manual)
        #expect(manualFirst.steps.last?.step == .device && manualFirst.steps.last?.reason.contains("left out") == true)
        let deviceOnly = try plan(
            [availableBrowser, manual], Self.service, code: CodeConfiguration(flowOrder: ["device"]))
        #expect(deviceOnly.chosen == nil)
        #expect(deviceOnly.error.code == .noAgentAvailable)
    }

    @Test("forcing: --flow device over an available browser; a named manual agent")
    func forced() throws {
        #expect(try plan([availableBrowser, manual], Self.deviceService, forced: .device).chosen?.step == .device)
        var code = CodeConfiguration(preference: ["manual"])
        code.namedAgent = "manual"
        #expect(try plan([availableBrowser, manual], Self.deviceService, code: code).chosen?.step == .manual)
    }

    @Test("a managed preference that overrules the named agent: the chosen step says who won instead, and why")
    func namedAgentOverruled() throws {
        let folder = try TemporaryFolder()
        let managed = folder.path + "/managed.toml"
        try "preference = [\"browser\"]\n".write(toFile: managed, atomically: true, encoding: .utf8)
        var code = CodeConfiguration(preference: ["other"], allowTestAgents: true)
        code.namedAgent = "other"
        let configuration = try Configuration.load(
            sources: ConfigurationSources(environment: [:], systemFiles: [], userFile: nil, managedFile: managed),
            code: code)
        let other = AgentCandidate(agent: FakeExternalUserAgent(id: "other", kind: .testDouble))
        let plan = SignInChain.plan(candidates: [availableBrowser, other], configuration: configuration, service: nil)
        let chosen = try #require(plan.chosen)
        #expect(chosen.agent?.descriptor.id == "browser")
        #expect(chosen.reason.contains("the agent 'other' was named explicitly, but 'browser' was chosen instead"))
        #expect(chosen.reason.contains(managed), "the reason cites the managed file")
    }

    @Test("without the server's metadata the device step is unknown")
    func unknown() throws {
        let plan = try plan([browser, manual], nil)
        #expect(plan.steps[1].status == .unknown)
    }

    @Test("flow-order is checked like every key: an unknown step is configurationInvalid")
    func invalidOrder() {
        #expect(throws: ExternalUserAgentError.self) {
            try plan([manual], nil, code: CodeConfiguration(flowOrder: ["browser", "carrier-pigeon"]))
        }
    }
}
