// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentTesting
import Foundation
import Testing

/// The denial of service a stray request could cause: `eua login` waits in the browser, a request with a
/// wrong `state` reaches the registered redirect URI (`curl`, or a web page trying ports). It must be
/// answered 400 and the sign-in must go on and finish.
@Suite("eua login: a stray request does not end the sign-in", .onOwnThreads)
struct StrayRequestLoginTests {
    @Test("a wrong state on the redirect URI gets 400; login still succeeds and --json counts the refusal")
    func wrongStateWhileWaiting() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let folder = try TemporaryFolder()
            let configFolder = folder.path + "/config/eua"
            try FileManager.default.createDirectory(atPath: configFolder, withIntermediateDirectories: true)
            try "[receiver]\npath = \"/callback\"\n".write(
                toFile: configFolder + "/config.toml", atomically: true, encoding: .utf8)
            let port = try OIDCProviderMock.freePort()
            let stateFile = folder.path + "/state.json"
            let executable = try TestPaths.product("eua")
            let arguments = [
                "login", "--issuer", server.issuer, "--client-id", server.options.clientID,
                "--agent", "headless", "--agent-option", "mode=follow", "--agent-option", "delay-ms=3000",
                "--port", String(port), "--timeout", "30", "--state-file", stateFile, "--json",
            ]
            let environment = [
                "EUA_ALLOW_TEST_AGENTS": "1", "EUA_CLIENT_SECRET": "", "XDG_CONFIG_HOME": folder.path + "/config",
                "EUA_LOG_LEVEL": "info",
            ]
            let login = Task {
                try await offThePool {
                    try ProcessRunner.run(executable, arguments, environment: environment, timeout: 60)
                }
            }
            // The receiver listens before the agent presents; the agent then waits 3 s before it follows. A
            // connection made while the listener is still being set up is closed unanswered (status 0): try again.
            let deadline = Date().addingTimeInterval(20)
            var status = 0
            while status == 0, Date() < deadline {
                if let stray = try? RawConnection(port: port) {
                    stray.send("GET /callback?code=stray-code&state=WRONG HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
                    status = stray.status()
                }
                if status == 0 { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(status == 400, "the stray request is refused")

            let result = try await login.value
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let line = try #require(result.stdout.split(separator: "\n").last)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(json["refused_callbacks"] as? Int == 1)
            #expect(json["subject"] as? String == "alice")
            #expect(server.tokenRequests.count == 1, "only the real code was exchanged")
            #expect(result.stderr.contains("turned away"), "the log and the summary say a request was refused")
            #expect(!result.stderr.contains("stray-code"), "request data never reaches the log")
        }
    }
}
