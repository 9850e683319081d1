// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentTesting
import Foundation
import Testing

/// What the OpenID Connect conformance tests share: running the built `eua` against a local server.
enum OIDCRun {
    static let environment = ["EUA_ALLOW_TEST_AGENTS": "1", "EUA_CLIENT_SECRET": ""]

    /// Runs `eua arguments…` (the built binary) and waits for it, at most 90 s.
    static func eua(_ arguments: [String], environment: [String: String] = OIDCRun.environment) async throws
        -> ProcessResult
    {
        let executable = try TestPaths.product("eua")
        return try await offThePool {
            try ProcessRunner.run(executable, arguments, environment: environment, timeout: 90)
        }
    }

    /// `eua login` with the headless agent against `server`, saving to `stateFile`.
    static func login(
        _ server: LocalAuthorizationServer, secret: String? = nil, stateFile: String,
        extra: [String] = []
    ) async throws -> ProcessResult {
        var arguments = [
            "login", "--issuer", server.issuer, "--client-id", server.options.clientID,
            "--scope", "openid email", "--agent", "headless", "--agent-option", "mode=follow",
            "--timeout", "30", "--state-file", stateFile,
        ]
        if let secret { arguments += ["--client-secret", secret] }
        return try await eua(arguments + extra)
    }

    /// The JSON object on the last line of `output`.
    static func lastJSON(_ output: String) throws -> [String: Any] {
        let line = try #require(output.split(separator: "\n").last)
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// The `token_response` of a saved state file.
    static func savedTokens(_ stateFile: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: stateFile))
        let state = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(state["token_response"] as? [String: Any])
    }
}
