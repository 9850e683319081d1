// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import ExternalUserAgentOAuth
import ExternalUserAgentTesting
import Foundation
import Testing

/// The testing kit's wiring of `eua demo`: the server's options, the headless agent's, the state file,
/// and a server that is stopped however the sign-in ends.
@Suite("LocalSignInDemo: the demo's server wiring")
struct LocalSignInDemoTests {
    @Test("the headless agent follows (and fills in the form only when there is one); a real browser gets the form")
    func options() throws {
        let folder = try TemporaryFolder()
        let quick = try LocalSignInDemo(stateFile: folder.path + "/s.json")
        #expect(quick.agentOptions == ["mode": "follow"] && quick.serverOptions.authorizationPage == .autoApprove)
        #expect(quick.serverOptions.clientID == LocalSignInDemo.clientID && !quick.stateFileIsTemporary)
        let form = try LocalSignInDemo(
            subject: "bob", loginForm: true, signingAlgorithm: .es256,
            stateFile: folder.path + "/s.json")
        #expect(form.agentOptions == ["mode": "follow", "form.username": "bob"])
        #expect(form.serverOptions.authorizationPage == .loginForm && form.serverOptions.signingAlgorithm == .es256)
        let browser = try LocalSignInDemo(agent: "firefox", stateFile: folder.path + "/s.json")
        #expect(
            browser.agentOptions.isEmpty && browser.serverOptions.authorizationPage == .loginForm && !browser.isHeadless
        )
    }

    @Test("without a state file: a new private folder in TMPDIR")
    func temporaryStateFile() throws {
        let folder = try TemporaryFolder()
        let demo = try LocalSignInDemo(environment: ["TMPDIR": folder.path])
        #expect(demo.stateFileIsTemporary)
        #expect(demo.stateFile.hasPrefix(folder.path + "/eua-demo-") && demo.stateFile.hasSuffix("/auth-state.json"))
        let made = (demo.stateFile as NSString).deletingLastPathComponent
        let mode = try FileManager.default.attributesOfItem(atPath: made)[.posixPermissions] as? Int
        #expect(mode == 0o700)
    }

    @Test("a TMPDIR that cannot hold the folder: the error names it and says what to do")
    func unusableTemporaryFolder() throws {
        let folder = try TemporaryFolder()
        let missing = folder.path + "/no/such/folder"
        #expect {
            try LocalSignInDemo(environment: ["TMPDIR": missing])
        } throws: { error in
            let text = "\(error)"
            return error is LocalAuthorizationServerError
                && text.contains("could not make a temporary folder in \(missing)")
                && text.contains("No such file or directory") && text.contains("set TMPDIR")
        }
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    @Test("the server is stopped when the sign-in fails")
    func stopsOnFailure() async throws {
        let folder = try TemporaryFolder()
        let demo = try LocalSignInDemo(stateFile: folder.path + "/s.json")
        struct Failed: Error {}
        var issuer = ""
        await #expect(throws: Failed.self) {
            try await demo.run { server in
                issuer = server.issuer
                _ = try await Discovery().configuration(issuer: server.issuer)
                throw Failed()
            }
        }
        #expect(!issuer.isEmpty)
        await #expect {
            try await Discovery(http: OAuthHTTP(timeout: .seconds(2))).configuration(issuer: issuer)
        } throws: { ExternalUserAgentError.code(of: $0) == .discoveryFailed }
    }
}
