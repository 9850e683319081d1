// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import ExternalUserAgentOAuth
import ExternalUserAgentTesting
import Foundation
import Testing

/// A client with a secret: the way it is sent is chosen from the server's metadata unless given, the saved
/// state says the client is confidential and how (never the secret), and a refresh without the secret says
/// what is missing instead of sending an empty one.
@Suite("confidential clients")
struct ConfidentialClientTests {
    static func service(methods: [String]?) -> ServiceConfiguration {
        ServiceConfiguration(
            issuer: "https://id.example", authorizationEndpoint: URL(string: "https://id.example/a")!,
            tokenEndpoint: URL(string: "https://id.example/t")!,
            tokenEndpointAuthMethodsSupported: methods)
    }

    @Test("no method given: client_secret_basic when listed or nothing is listed, else client_secret_post")
    func negotiation() throws {
        let client = ClientCredentials(clientID: "c", clientSecret: "s")
        #expect(try client.negotiated(with: Self.service(methods: nil)).authenticationMethod == .clientSecretBasic)
        #expect(
            try client.negotiated(with: Self.service(methods: ["client_secret_post", "client_secret_basic"]))
                .authenticationMethod == .clientSecretBasic)
        #expect(
            try client.negotiated(with: Self.service(methods: ["client_secret_post"])).authenticationMethod
                == .clientSecretPost)
        let explicit = ClientCredentials(clientID: "c", clientSecret: "s", authenticationMethod: .clientSecretPost)
        #expect(
            try explicit.negotiated(with: Self.service(methods: ["client_secret_basic"])).authenticationMethod
                == .clientSecretPost)
        let publicClient = ClientCredentials(clientID: "c")
        #expect(
            try publicClient.negotiated(with: Self.service(methods: ["client_secret_basic"])).authenticationMethod
                == .none)
    }

    @Test("a server that lists no secret method the client can use: invalidOptions naming what it lists")
    func noUsableMethod() {
        #expect {
            _ = try ClientCredentials(clientID: "c", clientSecret: "s")
                .negotiated(with: Self.service(methods: ["private_key_jwt", "tls_client_auth"]))
        } throws: { error in
            let error = error as? ExternalUserAgentError
            return error?.code == .invalidOptions
                && error?.message.contains("[private_key_jwt, tls_client_auth]") == true
        }
    }

    @Test(
        "a server that lists only client_secret_post gets the secret in the body; the state records it, not the secret")
    func postFromDiscovery() async throws {
        try await LocalAuthorizationServer.withServer(
            .init(
                clientSecret: "s3cret",
                advertisedAuthMethods: ["client_secret_post"])
        ) { server in
            let folder = try TemporaryFolder()
            let file = AuthStateFile(path: folder.path + "/state.json")
            let state = try await FlowHarness.signIn(server, secret: "s3cret", file: file)
            #expect(state.client.authenticationMethod == .clientSecretPost)
            #expect(server.tokenRequests.map(\.clientAuthentication) == ["client_secret_post"])
            let saved = try String(contentsOfFile: file.path, encoding: .utf8)
            #expect(!saved.contains("s3cret"))
            let json = try #require(try JSONSerialization.jsonObject(with: Data(saved.utf8)) as? [String: Any])
            let client = try #require(json["client"] as? [String: Any])
            #expect(client["confidential"] as? Bool == true)
            #expect(client["token_endpoint_auth_method"] as? String == "client_secret_post")
        }
    }

    @Test(
        "refreshing a confidential client's saved state without the secret: invalidOptions saying how to give it; nothing sent"
    )
    func refreshWithoutSecret() async throws {
        try await LocalAuthorizationServer.withServer(.init(clientSecret: "s3cret")) { server in
            let folder = try TemporaryFolder()
            let file = AuthStateFile(path: folder.path + "/state.json")
            _ = try await FlowHarness.signIn(server, secret: "s3cret", file: file)
            let before = try String(contentsOfFile: file.path, encoding: .utf8)
            let requests = server.tokenRequests.count
            let loaded = try await AuthState.load(from: file)
            await #expect {
                try await loaded.freshTokens(force: true)
            } throws: { error in
                let error = error as? ExternalUserAgentError
                let message = error?.message ?? ""
                return error?.code == .invalidOptions && message.contains("confidential client (client_secret_basic)")
                    && message.contains("give it (in code: ClientCredentials.clientSecret)")
                    && error?.remedies == [.giveClientSecret]
            }
            #expect(server.tokenRequests.count == requests, "no token request was sent")
            #expect(try String(contentsOfFile: file.path, encoding: .utf8) == before, "the saved state is unchanged")
        }
    }

    @Test("a confidential client without its secret at sign-in: refused before the agent is shown anything")
    func signInWithoutSecret() async throws {
        try await LocalAuthorizationServer.withServer(.init(clientSecret: "s3cret")) { server in
            await #expect {
                _ = try await FlowHarness.signIn(server, method: .clientSecretBasic)
            } throws: { error in
                (error as? ExternalUserAgentError)?.code == .invalidOptions
            }
            #expect(server.authorizationRequests.isEmpty && server.tokenRequests.isEmpty)
        }
    }
}
