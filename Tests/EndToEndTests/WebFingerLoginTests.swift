// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentTesting
import Foundation
import Testing

/// `eua login --account` (WebFinger issuer discovery, OpenID Connect Discovery §2), the built binary,
/// against the local authorization server.
@Suite("eua login --account, end to end", .onOwnThreads)
struct WebFingerLoginTests {
    func login(_ account: String, clientID: String, stateFile: String) async throws -> ProcessResult {
        try await OIDCRun.eua([
            "login", "--account", account, "--client-id", clientID, "--agent", "headless",
            "--agent-option", "mode=follow", "--timeout", "30", "--state-file", stateFile,
        ])
    }

    @Test("alice@host finds the issuer with WebFinger (acct: resource, issuer rel) and signs in there")
    func findsIssuer() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let account = "alice@127.0.0.1:\(server.port)"
            let result = try await login(account, clientID: server.options.clientID, stateFile: folder.path + "/s.json")
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("WebFinger found issuer \(server.issuer) for \(account)"))
            #expect(result.stdout.contains("Signed in as alice at \(server.issuer)."), "\(result.stdout)")
            let request = try #require(server.requestLog.first)
            #expect(request.method == "GET")
            #expect(
                request.target == "/.well-known/webfinger?resource=acct%3Aalice%40127.0.0.1%3A\(server.port)"
                    + "&rel=http%3A%2F%2Fopenid.net%2Fspecs%2Fconnect%2F1.0%2Fissuer", "\(request.target)")
        }
    }

    @Test("an account the host does not know: a clear error, nothing else asked, nothing saved")
    func unknownAccount() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            let result = try await login("bob@127.0.0.1:\(server.port)", clientID: "c", stateFile: stateFile)
            #expect(result.status != 0)
            #expect(
                result.stderr.contains(
                    "WebFinger at http://127.0.0.1:\(server.port)/.well-known/webfinger answered HTTP 404")
                    && result.stderr.contains("--issuer"), "stderr: \(result.stderr)")
            #expect(server.requestLog.count == 1 && !FileManager.default.fileExists(atPath: stateFile))
        }
    }

    @Test("--account and --issuer together, or an account without a host, are usage errors")
    func usage() async throws {
        let both = try await OIDCRun.eua([
            "login", "--account", "a@b.example", "--issuer", "https://b.example", "--client-id", "c",
        ])
        #expect(both.status == 64 && both.stderr.contains("give --issuer or --account (exactly one)"), "\(both.stderr)")
        let noHost = try await OIDCRun.eua(["login", "--account", "alice@", "--client-id", "c"])
        #expect(noHost.status != 0 && noHost.stderr.contains("has no valid host after '@'"), "\(noHost.stderr)")
    }
}
