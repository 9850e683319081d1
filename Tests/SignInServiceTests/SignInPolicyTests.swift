// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore
import Foundation
import Testing
import EUATestSupport
@testable import EUASignInService

/// The host's `[signin]` table, read through the configuration's layers as `eua explain` shows them: the managed
/// file pins what it sets; the other layers set the rest.
@Suite("Sign-in service policy")
struct SignInPolicyTests {
    static func policy(user: String, managed: String) throws -> SignInPolicy {
        let folder = try TemporaryFolder("eua-signin-policy")
        let (userFile, managedFile) = (folder.path + "/config.toml", folder.path + "/managed.toml")
        try user.write(toFile: userFile, atomically: true, encoding: .utf8)
        try managed.write(toFile: managedFile, atomically: true, encoding: .utf8)
        let sources = ConfigurationSources(
            environment: [:], systemFiles: [], userFile: userFile, managedFile: managedFile)
        return SignInPolicy(configuration: try Configuration.load(sources: sources))
    }

    static func refusal(_ body: () throws(ServiceError) -> Void) -> String? {
        do throws(ServiceError) {
            try body()
            return nil
        } catch {
            return error.name
        }
    }

    @Test("by default every app, every issuer and every client id may be used")
    func defaults() throws {
        let policy = try Self.policy(user: "", managed: "")
        #expect(Self.refusal { () throws(ServiceError) in try policy.checkCaller(.host(appID: nil)) } == nil)
        #expect(
            Self.refusal { () throws(ServiceError) in
                try policy.checkCaller(.flatpak(id: "org.example.A", instance: "1"))
            } == nil)
        #expect(
            Self.refusal { () throws(ServiceError) in
                try policy.checkClient(issuer: "https://id.example.com", clientID: "x", app: "host")
            } == nil)
    }

    @Test("the managed file pins [signin]: host apps closed, issuers listed, a client id bound to one app")
    func managed() throws {
        let policy = try Self.policy(
            user: """
                [signin]
                host-apps = true
                sandboxed-apps = true
                """,
            managed: """
                [signin]
                host-apps = false
                issuers = ["https://id.example.com"]
                [signin.clients."https://id.example.com"]
                "native-app-1" = ["org.example.AppA"]
                """)
        let notAllowed = "org.externaluseragent.SignIn.Error.NotAllowed"
        #expect(
            Self.refusal { () throws(ServiceError) in try policy.checkCaller(.host(appID: "org.gnome.Terminal")) }
                == notAllowed)
        #expect(Self.refusal { () throws(ServiceError) in try policy.checkCaller(.snap(name: "firefox")) } == nil)
        #expect(
            Self.refusal { () throws(ServiceError) in
                try policy.checkClient(issuer: "https://other.example.com", clientID: "x", app: "org.example.AppA")
            } == notAllowed)
        #expect(
            Self.refusal { () throws(ServiceError) in
                try policy.checkClient(
                    issuer: "https://id.example.com", clientID: "native-app-1", app: "org.example.AppA")
            } == nil)
        #expect(
            Self.refusal { () throws(ServiceError) in
                try policy.checkClient(
                    issuer: "https://id.example.com", clientID: "native-app-1", app: "org.example.AppB")
            } == notAllowed)
        #expect(
            Self.refusal { () throws(ServiceError) in
                try policy.checkClient(issuer: "https://id.example.com", clientID: "another", app: "org.example.AppB")
            } == nil)
    }

    @Test("a layer other than the managed one may close the service to sandboxed apps")
    func userLayer() throws {
        let policy = try Self.policy(user: "[signin]\nsandboxed-apps = false\n", managed: "")
        #expect(
            Self.refusal { () throws(ServiceError) in
                try policy.checkCaller(.flatpak(id: "org.example.A", instance: "1"))
            } == "org.externaluseragent.SignIn.Error.NotAllowed")
        #expect(Self.refusal { () throws(ServiceError) in try policy.checkCaller(.host(appID: nil)) } == nil)
    }

    @Test("a [signin] key of the wrong type is a configuration error with its file and line")
    func wrongType() throws {
        let error = #expect(throws: ExternalUserAgentError.self) {
            try Self.policy(user: "", managed: "[signin]\nissuers = \"https://id.example.com\"\n")
        }
        #expect(error?.message.contains("managed.toml:2") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("signin.issuers") == true)
    }
}
