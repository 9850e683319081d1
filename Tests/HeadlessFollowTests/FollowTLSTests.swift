// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
@testable import EUAHeadless
import ExternalUserAgentPluginKit
import Foundation
import ExternalUserAgentNet
import EUATestSupport
import Testing

/// Follow mode over https against a server whose certificate a throwaway CA (made with `openssl` now) signed.
@Suite("headless follow mode over https", .onOwnThreads, .timeLimit(.minutes(2)))
struct FollowTLSTests {
    @Test("with ca-file the whole flow runs over https; without it, a clear error and nothing posted")
    func caFile() throws {
        let ca = try TestCA()
        let server = try FollowPagesServer(tls: ca)
        let options = ["form.username": "alice", "form.password": "right"]
        let callback = try FollowFlowTests.follow(
            server.authorizationURL(), options.merging(["ca-file": ca.caCertificate]) { $1 })
        #expect(callback.absoluteString == "http://127.0.0.1:9/cb?code=good-code&state=st-1")
        #expect(try server.log().map(\.path) == ["/authorize", "/login", "/login", "/consent", "/consent"])

        let refused = FollowFlowTests.message { try FollowFlowTests.follow(server.authorizationURL(), options) }
        #expect(
            refused.hasPrefix(
                "headless agent: GET https://127.0.0.1:\(server.port)/authorize: the server's certificate is not trusted by the system's trust store"
            ), "\(refused)")
        #expect(
            refused.hasSuffix(
                "if the provider uses a test CA, give its certificate with the agent option ca-file=PATH"), "\(refused)"
        )
        #expect(try server.log().count == 5, "the untrusted server got no request")
    }

    @Test("a CA file that holds no certificate is reported as such")
    func badCAFile() throws {
        let ca = try TestCA()
        let server = try FollowPagesServer(tls: ca)
        let message = FollowFlowTests.message {
            try FollowFlowTests.follow(server.authorizationURL(), ["ca-file": ca.serverKey])
        }
        #expect(
            message.contains("could not be read as PEM certificates")
                || message.contains("not trusted by the CAs in \(ca.serverKey)"), "\(message)")
    }

    @Test("a redirect from https to plain http is never followed")
    func downgrade() throws {
        let ca = try TestCA()
        let server = try FollowPagesServer(tls: ca)
        let message = FollowFlowTests.message {
            try FollowFlowTests.follow(URL(string: "\(server.base)/downgrade")!, ["ca-file": ca.caCertificate])
        }
        #expect(
            message
                == "headless agent: the provider sent the flow from https to plain http (http://127.0.0.1:\(server.port)/login); follow mode never leaves https for http"
        )
        #expect(try server.log().count == 1)
    }
}
