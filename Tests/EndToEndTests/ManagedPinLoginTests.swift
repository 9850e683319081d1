// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentTesting
import Foundation
import Testing

/// `eua login` under a managed file that pins the agent (issue 40, point 9): an agent option given on the command
/// line without `--agent` cannot change what the pin locks either.
extension NoBrowserTests {
    @Test(
        "a locked option from --agent-option (no --agent) is left out with a warning naming the managed file; the sign-in works"
    )
    func lockedOptionOnCommandLine() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let desktop = try IsolatedDesktop(registerHandler: false)
            let folder = try TemporaryFolder()
            let managed = folder.path + "/managed.toml"
            try "allow-test-agents = true\npreference = [\"headless\"]\n".write(
                toFile: managed, atomically: true, encoding: .utf8)
            let environment = Self.isolated(desktop, ["EUA_MANAGED_CONFIG": managed])
            let eua = try TestPaths.product("eua")
            let login = try await offThePool {
                try ProcessRunner.run(
                    eua,
                    Self.arguments(
                        server, folder,
                        [
                            "--agent-option", "mode=follow", "--agent-option", "executable=/bin/true",
                        ]),
                    environment: environment, replacingEnvironment: true, timeout: 60)
            }
            #expect(login.status == 0, "stderr: \(login.stderr)")
            #expect(
                login.stderr.contains(
                    "the agent option executable=/bin/true is ignored: the managed file \(managed):2 "
                        + "pins the agent 'headless'"), "stderr: \(login.stderr)")
            #expect(login.stdout.contains("Signed in as alice at \(server.issuer)."), "\(login.stdout)")
        }
    }
}
