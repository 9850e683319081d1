// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import Foundation
import Testing

/// The loopback receiver with `expect=sign-out`: the post-logout redirect of an end-session request carries the
/// state only, and nothing else may complete it.
@Suite("Loopback receiver: the post-logout redirect (expect=sign-out)", .onOwnThreads, .timeLimit(.minutes(2)))
struct SignOutRedirectTests {
    @Test("a redirect with the right state only completes the sign-out; the page says signed out")
    func stateOnly() async throws {
        let harness = try await LoopbackHarness(options: ["expect": "sign-out"])
        let connection = try RawConnection(port: harness.port)
        connection.send(harness.request("state=\(LoopbackHarness.state)"))
        let reply = connection.readAll()
        #expect(RawConnection.status(of: reply) == 200 && reply.contains("You are signed out"))
        let url = try await harness.running.value.get()
        #expect(url.query == "state=\(LoopbackHarness.state)")
        try await harness.expectPortClosed()
    }

    @Test(
        "hostile post-logout redirects are refused and the wait goes on",
        arguments: [
            ("", 400), ("state=forged", 400), ("state=", 400), ("code=c0de", 400),
            ("state=\(LoopbackHarness.state)&state=\(LoopbackHarness.state)", 400),
            ("state=\(LoopbackHarness.state)%00", 400),
        ])
    func refused(query: String, status: Int) async throws {
        let harness = try await LoopbackHarness(options: ["expect": "sign-out"])
        #expect(try harness.send(harness.request(query)) == status)
        harness.expectStillWaiting()
        #expect(try harness.send(harness.request("state=\(LoopbackHarness.state)")) == 200)
        _ = try await harness.running.value.get()
    }

    @Test("expect=sign-out needs the expected state; without one nothing completes it")
    func needsState() async throws {
        let harness = try await LoopbackHarness(options: ["expect": "sign-out"], expectedState: nil)
        #expect(try harness.send(harness.request("state=anything")) == 400)
        #expect(try harness.send(harness.request("code=c&state=anything")) == 400)
        harness.expectStillWaiting()
        harness.session.cancel()
    }

    @Test("an unknown expect value is refused when the receiver starts")
    func badOption() async throws {
        await #expect(throws: ExternalUserAgentError.self) {
            _ = try await LoopbackHarness(options: ["expect": "sign-sideways"])
        }
    }

    @Test("without expect=sign-out a state-only redirect is still refused (a sign-in needs a code)")
    func signInNeedsCode() async throws {
        let harness = try await LoopbackHarness()
        #expect(try harness.send(harness.request("state=\(LoopbackHarness.state)")) == 400)
        try await harness.finishWithRealRedirect()
    }
}
