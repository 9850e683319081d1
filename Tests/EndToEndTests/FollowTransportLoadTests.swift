// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import Foundation
import Testing

/// What a headless sign-in over plain http loads, seen by the dynamic loader (`LD_DEBUG=files`) of the built
/// `eua` and every process it starts: the headless plugin, and never libcurl (nor the TLS libraries it brings).
@Suite("eua login in follow mode over http loads no libcurl", .onOwnThreads)
struct FollowTransportLoadTests {
    @Test("against django-oauth-toolkit over http: alice signed in, libEUAHeadless opened, libcurl never")
    func noLibcurl() async throws {
        let provider = try await DjangoProviderFollowTests.provider()
        let folder = try TemporaryFolder()
        let config = try folder.folder("config/eua")
        try "[receiver]\npath = \"/callback\"\n".write(
            to: config.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
        let executable = try TestPaths.product("eua")
        let arguments = [
            "login", "--issuer", provider.issuer, "--client-id", "native-app", "--scope", "openid",
            "--agent", "headless", "--agent-option", "mode=follow", "--agent-option", "form.username=alice",
            "--agent-option", "form.password=\(DjangoProviderFollowTests.password)", "--timeout", "60",
            "--state-file", folder.path + "/state.json",
        ]
        let environment = DjangoProviderFollowTests.environment.merging([
            "XDG_CONFIG_HOME": folder.path + "/config", "LD_DEBUG": "files",
        ]) { $1 }
        let result = try await offThePool {
            try ProcessRunner.run(executable, arguments, environment: environment, timeout: 90)
        }
        #expect(result.status == 0, "stderr: \(result.stderr.suffix(2000))")
        #expect(try provider.records().access_tokens.first?.user == "alice")
        #expect(result.stderr.contains("libEUAHeadless.so"), "the loader's trace shows the headless plugin opened")
        let curlLines = result.stderr.split(separator: "\n").filter { $0.contains("libcurl") || $0.contains("libssl") }
        #expect(curlLines.isEmpty, "loaded for a plain-http flow: \(curlLines.prefix(3))")
        #expect(!result.stderr.contains(DjangoProviderFollowTests.password))
    }
}
