// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
@testable import EUAHeadless
import ExternalUserAgentPluginKit
import Foundation
import ExternalUserAgentNet
import EUATestSupport
import Testing

/// Follow mode walking a provider-like page flow (`follow_pages_server.py`: Django-style login with an error
/// list, django-oauth-toolkit's consent page and error page) over real sockets, and what the server was sent.
@Suite("headless follow mode: a provider's page flow", .onOwnThreads, .timeLimit(.minutes(2)))
struct FollowFlowTests {
    static func follow(_ url: URL, _ options: [String: String]) throws -> URL {
        var browser = try BrowserFollow(
            script: HeadlessScript(options: ["mode": "follow"].merging(options) { $1 }),
            redirectURI: URL(string: FollowPagesServer.redirectURI)!, stop: StopSignal())
        return try browser.callbackURL(from: url)
    }

    /// The message of the `PluginError` that `body` throws.
    static func message(_ body: () throws -> URL) -> String {
        do {
            let url = try body()
            return "no error: reached \(url)"
        } catch let error as PluginError {
            return error.message
        } catch {
            return "not a PluginError: \(error)"
        }
    }

    @Test("the right password: login form and consent form answered, cookies kept, the consent's allow button pressed")
    func signsIn() throws {
        let server = try FollowPagesServer()
        let callback = try Self.follow(server.authorizationURL(), ["form.username": "alice", "form.password": "right"])
        #expect(callback.absoluteString == "http://127.0.0.1:9/cb?code=good-code&state=st-1")
        let log = try server.log()
        #expect(
            log.map { "\($0.method) \($0.path)" } == [
                "GET /authorize", "GET /login", "POST /login", "GET /consent", "POST /consent",
            ])
        #expect(log[2].fields == ["csrfmiddlewaretoken", "password", "username"] && log[2].username == "alice")
        #expect(
            log[4].fields == ["allow", "client_id", "csrfmiddlewaretoken"],
            "the Authorize button (name=allow) was pressed, not Cancel")
        #expect(log[3].cookie && log[4].cookie, "the session cookie set on /authorize went back")
        #expect(log[2].origin == server.base && log[4].origin == server.base, "a form's POST carries its page's Origin")
    }

    @Test("a wrong password is posted exactly once; the re-shown login form ends the flow with the page's error text")
    func wrongPassword() throws {
        let server = try FollowPagesServer()
        let message = Self.message {
            try Self.follow(server.authorizationURL(), ["form.username": "alice", "form.password": "wrong"])
        }
        #expect(message.hasPrefix("headless agent: the provider refused the credentials"), "\(message)")
        #expect(
            message.contains(
                "\"Please enter a correct username and password. Note that both fields may be case-sensitive.\""),
            "\(message)")
        #expect(!message.contains("wrong"), "the password never appears in a message")
        let posts = try server.log().filter { $0.method == "POST" }
        #expect(posts.count == 1, "the credentials were posted once: \(posts.map(\.path))")
    }

    @Test("a login form asking for a password no option gives: nothing is posted, the error names the option to add")
    func missingPassword() throws {
        let server = try FollowPagesServer()
        let message = Self.message { try Self.follow(server.authorizationURL(), ["form.username": "alice"]) }
        #expect(
            message.contains("asks for a password ('password')")
                && message.contains("give the agent option form.password="), "\(message)")
        #expect(try server.log().filter { $0.method == "POST" }.isEmpty)
    }

    @Test("django-oauth-toolkit's 400 page (Mismatching redirect URI) ends the flow with its own words")
    func errorPage() throws {
        let server = try FollowPagesServer()
        let message = Self.message { try Self.follow(URL(string: "\(server.base)/error?client_id=x")!, [:]) }
        #expect(
            message == "headless agent: the provider answered HTTP 400 at \(server.base)/error: "
                + "\"Error: invalid_request Mismatching redirect URI.\"; the sign-in cannot go on (check the client id and the registered redirect URI)"
        )
    }

    @Test("a 200 page with no form and no redirect: its text, escaped for a terminal")
    func blankPage() throws {
        let server = try FollowPagesServer()
        let message = Self.message { try Self.follow(URL(string: "\(server.base)/blank")!, [:]) }
        #expect(
            message.contains("has no form to submit and no redirect; it says: \"Thanks for \\x1b[31mvisiting\""),
            "\(message)")
        #expect(!message.contains("\u{1B}"))
    }

    @Test("a page that shows the same form after it was submitted ends the flow: nothing is submitted twice")
    func loop() throws {
        let server = try FollowPagesServer()
        let message = Self.message { try Self.follow(URL(string: "\(server.base)/loop")!, [:]) }
        #expect(
            message.contains("showed the same form again at \(server.base)/loop")
                && message.contains("Please confirm again."), "\(message)")
        #expect(try server.log().filter { $0.method == "POST" }.count == 1)
    }

    @Test("several buttons and none grants: the error lists them; submit=NAME=VALUE picks one")
    func buttons() throws {
        let server = try FollowPagesServer()
        let message = Self.message { try Self.follow(URL(string: "\(server.base)/choices")!, [:]) }
        #expect(
            message.contains(
                "buttons found: pick=red \"Red\", pick=blue \"Blue\"; choose one with the agent option submit=NAME"),
            "\(message)")
        #expect(try server.log().filter { $0.method == "POST" }.isEmpty)
        let picked = Self.message { try Self.follow(URL(string: "\(server.base)/choices")!, ["submit": "pick=blue"]) }
        #expect(picked.contains("answered HTTP 404"), "\(picked)")
        #expect(try server.log().last?.fields == ["pick"])
    }

    @Test("credentials are never sent over plain http to a host that is not loopback")
    func plainHTTPCredentials() throws {
        let server = try FollowPagesServer()
        let message = Self.message {
            try Self.follow(
                URL(string: "\(server.base)/remote-login")!, ["form.username": "alice", "form.password": "pw"])
        }
        #expect(
            message
                == "headless agent: the login form at \(server.base)/remote-login would send the credentials over plain http to "
                + "http://login.example.invalid/login; they are sent only over https (or to a loopback host)")
        #expect(try server.log().filter { $0.method == "POST" }.isEmpty)
    }

    @Test(
        "a login form answered with 307 to plain http on another host: the credentials are not sent again, the flow ends"
    )
    func credentialsNotRepeatedByTemporaryRedirect() throws {
        let server = try FollowPagesServer()
        let message = Self.message {
            try Self.follow(
                URL(string: "\(server.base)/login-307")!, ["form.username": "alice", "form.password": "pw"])
        }
        #expect(
            message == "headless agent: \(server.base)/post-307 answered the login form with 307, which would send the "
                + "credentials again over plain http to http://login.example.invalid/login; they are sent only over https "
                + "(or to a loopback host)")
        #expect(
            try server.log().filter { $0.method == "POST" }.map(\.path) == ["/post-307"],
            "posted once, to the loopback server only")
    }

    @Test("options: submit= and ca-file= are checked when the agent is made")
    func options() throws {
        #expect(
            try HeadlessScript(options: ["submit": "action=approve"]).submitChoice
                == SubmitButtonRule.Choice("action=approve"))
        #expect(throws: PluginError.self) { try HeadlessScript(options: ["submit": ""]) }
        #expect(throws: PluginError.self) { try HeadlessScript(options: ["submit": "=x"]) }
        #expect {
            try HeadlessScript(options: ["ca-file": "/nonexistent/ca.pem"])
        } throws: { error in
            (error as? PluginError)?.message
                == "option ca-file=/nonexistent/ca.pem: no readable file there; give the path of a PEM file of CA certificates"
        }
        #expect(throws: PluginError.self) { try HeadlessScript(options: ["ca-file": "/tmp"]) }
    }
}
