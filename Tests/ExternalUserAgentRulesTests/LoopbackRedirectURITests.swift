// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentRules
import Testing

/// The registered loopback redirect URI: what is accepted, what is refused and why, and the text sent.
@Suite("loopback redirect URI as registered")
struct LoopbackRedirectURITests {
    @Test("a URI without a port gets the receiver's port after the host; one with a port is kept byte for byte")
    func accepted() throws {
        let plain = try LoopbackRedirectURI(parsing: "http://127.0.0.1/callback")
        #expect(plain.host == .ipv4 && plain.port == nil && plain.path == "/callback")
        #expect(plain.uri(port: 54321) == "http://127.0.0.1:54321/callback")

        let fixed = try LoopbackRedirectURI(parsing: "http://127.0.0.1:8400/cb")
        #expect(fixed.port == 8400 && fixed.uri(port: 8400) == "http://127.0.0.1:8400/cb")

        let ipv6 = try LoopbackRedirectURI(parsing: "http://[::1]/cb")
        #expect(ipv6.host == .ipv6 && ipv6.uri(port: 9000) == "http://[::1]:9000/cb")

        let localhost = try LoopbackRedirectURI(parsing: "http://localhost:8123/oauth/callback%20x")
        #expect(localhost.host == .localhost && localhost.port == 8123 && localhost.path == "/oauth/callback%20x")

        let bare = try LoopbackRedirectURI(parsing: "http://127.0.0.1")
        #expect(bare.path == "" && bare.requestPath == "/" && bare.uri(port: 5000) == "http://127.0.0.1:5000")
    }

    struct Hostile: Sendable, CustomTestStringConvertible {
        var uri: String
        var says: String
        var testDescription: String { uri }
    }

    static let hostile: [Hostile] = [
        .init(uri: "https://127.0.0.1/cb", says: "it is https: a loopback redirect is plain http (RFC 8252 §7.3"),
        .init(uri: "http://127.0.0.1/cb#frag", says: "it has a fragment ('#')"),
        .init(uri: "http://user@127.0.0.1/cb", says: "it has userinfo ('user@' before the host)"),
        .init(uri: "http://example.com/cb", says: "its host 'example.com' is not a loopback host"),
        .init(uri: "http://127.0.0.2/cb", says: "its host '127.0.0.2' is not a loopback host"),
        .init(uri: "http://[::2]/cb", says: "its host '[::2]' is not a loopback host"),
        .init(uri: "http://127.0.0.1:0/cb", says: "its port '0' is not a port from 1 to 65535"),
        .init(uri: "http://127.0.0.1:65536/cb", says: "its port '65536' is not a port"),
        .init(uri: "http://127.0.0.1:99999999999999999999/cb", says: "is not a port from 1 to 65535"),
        .init(uri: "http://127.0.0.1:/cb", says: "its port '' is not a port"),
        .init(uri: "http://127.0.0.1/cb?x=1", says: "it has a query ('?')"),
        .init(uri: "http://127.0.0.1/c b", says: "it holds a space, a control or a non-ASCII character"),
        .init(uri: "http://127.0.0.1/cb\r\nX: y", says: "it holds a space, a control or a non-ASCII character"),
        .init(uri: "com.example.app:/cb", says: "its scheme is 'com.example.app', not http"),
        .init(uri: "127.0.0.1/cb", says: "it is not an absolute URI"),
        .init(uri: "http:/127.0.0.1/cb", says: "it has no host"),
        .init(uri: "http://[::1/cb", says: "its IPv6 host has no closing ']'"),
    ]

    @Test("a URI that cannot be a loopback redirect is refused, saying which part and why", arguments: hostile)
    func refused(_ test: Hostile) {
        do throws(LoopbackRedirectURI.Problem) {
            let uri = try LoopbackRedirectURI(parsing: test.uri)
            Issue.record("accepted \(uri)")
        } catch {
            #expect(error.description.contains(test.says), "\(error)")
        }
    }
}
