// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import ExternalUserAgentOAuth
import ExternalUserAgentTesting
import Foundation
import InMemoryLogging
import Logging
import Testing

@Suite("logging never shows a secret")
struct LoggingTests {
    @Test("a whole sign-in and refresh at trace level: no token, code, verifier or secret in any entry")
    func noSecrets() async throws {
        let logs = InMemoryLogHandler()
        var logger = Logger(label: "test") { _ in logs }
        logger.logLevel = .trace
        let secret = "very-secret-client-password"
        try await LocalAuthorizationServer.withServer(.init(clientSecret: secret)) { server in
            let folder = try TemporaryFolder()
            let state = try await FlowHarness.signIn(
                server, secret: secret, file: AuthStateFile(path: folder.path + "/s.json"),
                logger: logger)
            let first = try #require(await state.lastTokenResponse)
            let refreshed = try await state.freshTokens(force: true)

            var secrets = [secret, first.accessToken, refreshed.accessToken]
            secrets += [first.refreshToken, first.idToken, refreshed.refreshToken, refreshed.idToken].compactMap { $0 }
            secrets += server.tokenRequests.compactMap(\.grantValue)
            secrets += server.tokenRequests.compactMap(\.codeVerifier)
            secrets += server.authorizationRequests.compactMap { $0["state"] }
            secrets += server.authorizationRequests.compactMap { $0["nonce"] }
            #expect(secrets.count >= 10)
            #expect(logs.entries.count > 3, "the flow does log")
            for entry in logs.entries {
                let text = "\(entry.message) \(entry.metadata) \(entry.error.map { "\($0)" } ?? "")"
                for value in secrets {
                    #expect(!text.contains(value), "a secret reached the log: \(entry.message)")
                }
            }
        }
    }
}
