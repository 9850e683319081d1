// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import ExternalUserAgentOAuth
import ExternalUserAgentTesting
import Foundation
import Synchronization
import Testing

/// A request with a wrong `state` reaching the redirect URI (another tab, a web page trying ports)
/// must not end a sign-in: the receiver answers it 400 and the flow waits on for the real redirect.
@Suite("stray callbacks during a sign-in", .onOwnThreads)
struct StrayCallbackTests {
    @Test("a wrong state gets 400 and the sign-in still completes with the right one; the refusal is reported")
    func wrongStateDoesNotEndTheSignIn() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let configuration = try await Discovery().configuration(issuer: server.issuer)
            let catalog = try await BuiltPlugins.catalog()
            let headless = try #require(catalog.agent(id: "headless")).makeAgent(options: ["mode": "follow"])
            let attacker = StrayFirstAgent(inner: headless)
            let receiver = try #require(catalog.receiver(id: "loopback")).makeReceiver()
            let refusals = Mutex<[String]>([])
            let state = try await SignIn(
                configuration: configuration, client: ClientCredentials(clientID: server.options.clientID),
                timeout: .seconds(20)
            ) { progress in
                if case .callbackRefused(let reason) = progress { refusals.withLock { $0.append(reason) } }
            }.run(agent: attacker, receiver: receiver)

            #expect(attacker.strayStatuses.withLock { $0 } == [400, 400], "wrong and missing state are answered 400")
            #expect(await state.idTokenClaims?.subject == "alice", "the real redirect still signed in")
            #expect(server.tokenRequests.count == 1, "exactly one code was exchanged: the real one")
            let reasons = refusals.withLock { $0 }
            #expect(reasons.count == 2)
            #expect(
                reasons.allSatisfy { $0.contains("400") && !$0.contains("stray-code") }, "no request data in the reason"
            )
        }
    }
}

/// Plays a hostile page first — two requests to the redirect URI with a wrong and with no `state` —
/// then lets the headless agent do the real sign-in.
private final class StrayFirstAgent: ExternalUserAgent {
    let inner: any ExternalUserAgent
    let strayStatuses = Mutex<[Int]>([])

    init(inner: any ExternalUserAgent) { self.inner = inner }

    var descriptor: AgentDescriptor { inner.descriptor }

    func present(_ request: AgentRequest, session: ExternalUserAgentSession) async throws {
        let uri = request.redirectURI
        for query in ["code=stray-code&state=not-this-flows", "code=stray-code"] {
            let connection = try RawConnection(port: uri.port!)
            connection.send("GET \(uri.path)?\(query) HTTP/1.1\r\nHost: 127.0.0.1:\(uri.port!)\r\n\r\n")
            let status = connection.status()
            strayStatuses.withLock { $0.append(status) }
        }
        #expect(!session.isCompleted, "the stray requests did not end the flow")
        try await inner.present(request, session: session)
    }

    func dismiss() async { await inner.dismiss() }
}
