// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
@testable import ExternalUserAgentOAuth
import ExternalUserAgentTesting
import Foundation
import Testing

/// A private-use scheme redirect URI in `SignInFlow` and the configuration: the `scheme` receiver takes the
/// loopback receiver's place; contradicting loopback options and malformed URIs are refused before any request.
@Suite("SignInFlow with a private-use scheme redirect URI", .onOwnThreads)
struct PrivateUseRedirectURITests {
    typealias Registered = RegisteredRedirectURITests

    @Test("the redirect URI com.example.app:/cb gives the scheme receiver its scheme and path, nothing else")
    func receiverChoice() async throws {
        try await LocalAuthorizationServer.withServer { server in
            let flow = try Registered.flow(server, redirectURI: "com.example.app:/cb")
            #expect(flow.effectiveReceiverOptions["redirect-uri"] == "com.example.app:/cb")
            let catalog = try await BuiltPlugins.catalog()
            let receiver = try SignInFlow.Receiver.plugin(in: catalog).make([
                "redirect-uri": "com.example.app:/cb", "port": "8400",
            ])
            #expect(receiver.id == "scheme")
        }
    }

    @Test(
        "loopback options with a private-use redirect URI, or a malformed one, are refused before any request",
        arguments: [
            ("com.example.app:/cb", ["port": "8400"], "has no meaning with it"),
            ("com.example.app:/cb", ["path": "/x"], "has no meaning with it"),
            ("com.example.app://cb", [:], "with a single '/'"),
            ("myapp:/cb", [:], "not a reverse domain name"),
            ("com.example.app:/cb?x=y", [:], "no query"),
        ] as [(String, [String: String], String)])
    func refused(uri: String, options: [String: String], says: String) async throws {
        try await LocalAuthorizationServer.withServer { server in
            let flow = try Registered.flow(server, redirectURI: uri, receiverOptions: options)
            await #expect {
                try await flow.run()
            } throws: { error in
                let error = error as? ExternalUserAgentError
                return error?.code == .invalidOptions && error?.message.contains(says) == true
            }
            #expect(server.requestLog.isEmpty)
        }
    }

    @Test(
        "[login] redirect-uri and [logout] post-logout-redirect-uri take a private-use scheme URI; a bad one is refused with file:line"
    )
    func configuration() throws {
        let folder = try TemporaryFolder()
        let file = folder.path + "/config.toml"
        try
            "[login]\nredirect-uri = \"com.example.app:/cb\"\n[logout]\npost-logout-redirect-uri = \"com.example.app:/out\"\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        let configuration = try Registered.configuration(userFile: file)
        #expect(configuration.redirectURI == "com.example.app:/cb")
        #expect(configuration.postLogoutRedirectURI == "com.example.app:/out")
        try "[logout]\n\npost-logout-redirect-uri = \"com.example.app://out\"\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        #expect {
            _ = try Registered.configuration(userFile: file)
        } throws: { error in
            let error = error as? ExternalUserAgentError
            return error?.code == .configurationInvalid && error?.message.contains("\(file):3") == true
                && error?.message.contains("logout.post-logout-redirect-uri") == true
                && error?.message.contains("with a single '/'") == true
        }
    }
}
