// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentRules
import Testing

/// The scheme receiver's rules for one hand-off, without sockets.
@Suite("scheme hand-off check")
struct SchemeHandOffCheckTests {
    let check = SchemeHandOffCheck(scheme: "com.example.app", path: "/cb", expectedState: "S", ownUID: 1000)

    func verdict(_ url: String) -> SchemeHandOffCheck.Verdict { check.check(Array(url.utf8)) }

    @Test("a peer of another uid is refused; the same uid passes")
    func peer() {
        #expect(
            check.checkPeer(uid: 1001) == .refuse(status: 403, reason: "the hand-off came from another user (uid 1001)")
        )
        #expect(check.checkPeer(uid: 0) != nil)
        #expect(check.checkPeer(uid: 1000) == nil)
    }

    @Test("the redirect with the right state is the callback, scheme in any case")
    func callback() {
        #expect(verdict("com.example.app:/cb?code=C&state=S") == .callback("com.example.app:/cb?code=C&state=S"))
        #expect(
            verdict("COM.Example.App:/cb?error=access_denied&state=S")
                == .callback("COM.Example.App:/cb?error=access_denied&state=S"))
    }

    @Test("wrong or missing state, other scheme, other path, repeats, no code, too long, controls: refused")
    func refusals() {
        let cases: [(String, Int, String)] = [
            ("com.example.app:/cb?code=C&state=evil", 400, "the redirect's state does not belong to this sign-in"),
            ("com.example.app:/cb?code=C", 400, "the redirect has no state parameter"),
            (
                "org.other.app:/cb?code=C&state=S", 404,
                "the URL is not of the scheme 'com.example.app' this flow waits on"
            ),
            (
                "com.example.app.evil:/cb?code=C&state=S", 404,
                "the URL is not of the scheme 'com.example.app' this flow waits on"
            ),
            ("com.example.app:/cb/x?code=C&state=S", 404, "the URL's path is not the redirect URI's '/cb'"),
            ("com.example.app://cb?code=C&state=S", 404, "the URL's path is not the redirect URI's '/cb'"),
            ("com.example.app:/cb?code=C&state=S&state=S", 400, "a parameter is repeated"),
            ("com.example.app:/cb?state=S", 400, "the redirect has neither a code nor an error"),
            (
                "com.example.app:/cb?code=C&state=S#x", 400,
                "the URL holds a space, a control character, a fragment or raw non-ASCII bytes"
            ),
            (
                "com.example.app:/cb?code=C\n&state=S", 400,
                "the URL holds a space, a control character, a fragment or raw non-ASCII bytes"
            ),
            ("com.example.app:/cb?code=%ZZ&state=S", 400, "the URL holds a malformed query"),
        ]
        for (url, status, reason) in cases {
            #expect(verdict(url) == .refuse(status: status, reason: reason), "\(url)")
        }
        let long = "com.example.app:/cb?state=S&code=" + String(repeating: "x", count: PrivateUseScheme.maximumURLBytes)
        #expect(verdict(long) == .refuse(status: 414, reason: "the URL is longer than 8192 bytes"))
    }

    @Test("scheme names: reverse-DNS and lower case only (RFC 8252 §7.1)")
    func schemeNames() {
        #expect(PrivateUseScheme.problem(with: "com.example.app") == nil)
        #expect(PrivateUseScheme.problem(with: "com.example-app.v2+x") == nil)
        #expect(PrivateUseScheme.problem(with: "myapp")?.contains("not a reverse domain name") == true)
        #expect(PrivateUseScheme.problem(with: "Com.Example.App")?.contains("lower-case") == true)
        #expect(PrivateUseScheme.problem(with: "com..app")?.contains("not a reverse domain name") == true)
        #expect(PrivateUseScheme.problem(with: ".com.app")?.contains("must start with a letter") == true)
        #expect(PrivateUseScheme.problem(with: "1com.app")?.contains("must start with a letter") == true)
        #expect(PrivateUseScheme.problem(with: "com.app/evil")?.contains("lower-case") == true)
        #expect(PrivateUseScheme.problem(with: "")?.contains("empty") == true)
        #expect(
            PrivateUseScheme.problem(with: "a." + String(repeating: "b", count: 70))?.contains("longer than 64") == true
        )
    }
}
