// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentRules
import Testing

/// The scheme receiver's rules for a post-logout redirect (`expect=sign-out`), and the private-use redirect URI
/// parser `eua login` and `eua logout` share.
@Suite("scheme hand-off check: sign-out, and private-use redirect URIs")
struct SignOutHandOffTests {
    let check = SchemeHandOffCheck(
        scheme: "com.example.app", path: "/out", expectedState: "S", ownUID: 1000, signOut: true)

    @Test(
        "the post-logout redirect with the right state only is the callback; forged, missing or repeated states are not"
    )
    func postLogoutRedirect() {
        #expect(check.check(Array("com.example.app:/out?state=S".utf8)) == .callback("com.example.app:/out?state=S"))
        let refused: [(String, String)] = [
            ("com.example.app:/out?state=evil", "the redirect's state does not belong to this sign-in"),
            ("com.example.app:/out", "the redirect has no state parameter"),
            ("com.example.app:/out?code=C", "the redirect has no state parameter"),
            ("com.example.app:/out?state=S&state=S", "a parameter is repeated"),
        ]
        for (url, reason) in refused {
            #expect(check.check(Array(url.utf8)) == .refuse(status: 400, reason: reason), "\(url)")
        }
        let stateless = SchemeHandOffCheck(
            scheme: "com.example.app", path: "/out", expectedState: nil, ownUID: 1000, signOut: true)
        #expect(
            stateless.check(Array("com.example.app:/out?state=S".utf8))
                == .refuse(status: 400, reason: "this sign-out was started without a state to check"))
    }

    @Test(
        "private-use redirect URIs: the scheme and path, or why not",
        arguments: [
            ("com.example.app:/cb", "com.example.app", "/cb", nil),
            ("com.example.app:/", "com.example.app", "/", nil),
            ("com.example.app://cb", nil, nil, "with a single '/'"),
            ("com.example.app:cb", nil, nil, "with a single '/'"),
            ("com.example.app:/cb?x=1", nil, nil, "no query"),
            ("com.example.app:/cb#f", nil, nil, "no query, fragment"),
            ("com.example.app:/c b", nil, nil, "space or control character"),
            ("com.example.app:/c\u{1b}b", nil, nil, "space or control character"),
            ("Com.Example.App:/cb", nil, nil, "must be written in lower case"),
            ("myapp:/cb", nil, nil, "not a reverse domain name"),
            ("cb", nil, nil, "it has no scheme"),
        ] as [(String, String?, String?, String?)])
    func redirectURIs(uri: String, scheme: String?, path: String?, problem: String?) {
        do throws(PrivateUseScheme.RedirectURIProblem) {
            let parts = try PrivateUseScheme.redirectURIParts(uri)
            #expect(parts.scheme == scheme && parts.path == path)
        } catch {
            #expect(problem.map { error.description.contains($0) } == true, "\(uri): \(error)")
        }
        #expect(PrivateUseScheme.isPrivateUse("http://127.0.0.1/cb") == false)
        #expect(PrivateUseScheme.isPrivateUse("HTTPS://x/cb") == false)
    }
}
