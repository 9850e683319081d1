// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentTesting
import Foundation
import Testing

/// `eua login --id-token-alg`: a client registered with `none` or `HS256` ID tokens (OpenID Connect Core
/// §3.1.3.7, §10.1; the RP tests `rp-id_token-sig-none` and `rp-id_token-sig-hs256`), and every other
/// algorithm refused, against the local authorization server.
@Suite("eua login --id-token-alg, end to end", .onOwnThreads)
struct IDTokenAlgorithmTests {
    /// A server whose ID tokens are unsigned or HS256 (with `secret`), as for a client registered that way.
    static func keyless(_ algorithm: LocalAuthorizationServerOptions.KeylessAlgorithm, secret: String? = nil)
        -> LocalAuthorizationServerOptions
    {
        var options = LocalAuthorizationServerOptions(clientSecret: secret)
        options.keylessIDTokens = algorithm
        return options
    }

    @Test("none: an unsigned ID token from the code exchange signs in; the same from a refresh is refused, state kept")
    func unsignedFromCodeExchangeOnly() async throws {
        try await LocalAuthorizationServer.withServer(Self.keyless(.none)) { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            let result = try await OIDCRun.login(
                server, stateFile: stateFile, extra: ["--id-token-alg", "none", "--json"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(try OIDCRun.lastJSON(result.stdout)["subject"] as? String == "alice")
            let idToken = try #require(try OIDCRun.savedTokens(stateFile)["id_token"] as? String)
            #expect(idToken.hasSuffix("."), "the server sent an unsigned token")
            let saved = try String(contentsOfFile: stateFile, encoding: .utf8)
            #expect(
                saved.contains("\"id_token_signed_response_alg\" : \"none\""), "the registration is saved for refreshes"
            )

            let refreshed = try await OIDCRun.eua(["refresh", "--state-file", stateFile])
            #expect(refreshed.status != 0)
            #expect(
                refreshed.stderr.contains(
                    "unsigned (alg none), which is accepted only straight from the token endpoint "
                        + "in the code flow") && refreshed.stderr.contains("a refresh")
                    && refreshed.stderr.contains("idTokenInvalid"),
                "stderr: \(refreshed.stderr)")
            #expect(try String(contentsOfFile: stateFile, encoding: .utf8) == saved, "nothing was saved")
            #expect(server.tokenRequests.map(\.grantType) == ["authorization_code", "refresh_token"])
        }
    }

    @Test("none by default: refused, naming the flag to use, and nothing saved")
    func unsignedRefusedByDefault() async throws {
        try await LocalAuthorizationServer.withServer(Self.keyless(.none)) { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            let result = try await OIDCRun.login(server, stateFile: stateFile)
            #expect(result.status != 0)
            #expect(
                result.stderr.contains("signed with 'none', which this client does not accept by default")
                    && result.stderr.contains(
                        "registered with id_token_signed_response_alg none, say so (--id-token-alg)"),
                "stderr: \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: stateFile))
        }
    }

    @Test("HS256: checked with the client secret of a confidential client")
    func hmacWithClientSecret() async throws {
        try await LocalAuthorizationServer.withServer(Self.keyless(.hs256, secret: "s3cret-of-the-client")) { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            let result = try await OIDCRun.login(
                server, secret: "s3cret-of-the-client", stateFile: stateFile,
                extra: ["--id-token-alg", "HS256"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdout.contains("as alice"))
            #expect(!result.stdout.contains("s3cret") && !result.stderr.contains("s3cret"))
            #expect(server.tokenRequests.first?.clientAuthentication == "client_secret_basic")

            // A refresh checks the refreshed HS256 ID token with the secret given again.
            let refreshed = try await OIDCRun.eua(
                ["refresh", "--state-file", stateFile],
                environment: ["EUA_CLIENT_SECRET": "s3cret-of-the-client"])
            #expect(refreshed.status == 0, "stderr: \(refreshed.stderr)")
        }
    }

    @Test("HS256 with an altered signature: refused as not verifying with the client secret")
    func hmacTampered() async throws {
        var options = Self.keyless(.hs256, secret: "s3cret")
        options.misbehaviors = [.tamperedSignature]
        try await LocalAuthorizationServer.withServer(options) { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            let result = try await OIDCRun.login(
                server, secret: "s3cret", stateFile: stateFile, extra: ["--id-token-alg", "HS256"])
            #expect(result.status != 0)
            #expect(
                result.stderr.contains("HS256 signature does not verify with the client secret"),
                "stderr: \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: stateFile))
        }
    }

    @Test("HS256 for a public client: refused before any request, saying why")
    func hmacNeedsConfidentialClient() async throws {
        try await LocalAuthorizationServer.withServer(Self.keyless(.hs256)) { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            let result = try await OIDCRun.login(server, stateFile: stateFile, extra: ["--id-token-alg", "HS256"])
            #expect(result.status != 0)
            #expect(
                result.stderr.contains("checked with the client secret") && result.stderr.contains("public client")
                    && result.stderr.contains("invalidOptions"), "stderr: \(result.stderr)")
            #expect(server.requestLog.isEmpty, "nothing was asked of the server")
            #expect(!FileManager.default.fileExists(atPath: stateFile))
        }
    }

    @Test(
        "another algorithm than the registered one is refused, naming both",
        arguments: [
            ("RS256", "HS256"), ("HS256", "RS256"), ("HS256", "none"), ("none", "HS256"), ("ES256", "RS256"),
        ])
    func otherAlgorithmRefused(server algorithm: String, registered: String) async throws {
        var options = LocalAuthorizationServerOptions(
            clientSecret: "s3cret",
            signingAlgorithm: algorithm == "ES256" ? .es256 : .rs256)
        options.keylessIDTokens = .init(rawValue: algorithm)
        try await LocalAuthorizationServer.withServer(options) { server in
            let folder = try TemporaryFolder()
            let stateFile = folder.path + "/s.json"
            let result = try await OIDCRun.login(
                server, secret: "s3cret", stateFile: stateFile,
                extra: ["--id-token-alg", registered])
            #expect(result.status != 0)
            #expect(
                result.stderr.contains(
                    "is signed with '\(algorithm)', but the client is registered with "
                        + "'\(registered)'"), "stderr: \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: stateFile))
        }
    }

    @Test("an unknown --id-token-alg is a usage error listing the known ones")
    func unknownAlgorithm() async throws {
        let result = try await OIDCRun.eua([
            "login", "--issuer", "http://127.0.0.1:1", "--client-id", "c",
            "--id-token-alg", "hs256",
        ])
        #expect(result.status == 64)
        #expect(
            result.stderr.contains("'hs256' is not an ID token algorithm this client knows")
                && result.stderr.contains("HS256"), "stderr: \(result.stderr)")
    }
}
