// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import FoundationEssentials

/// Checks a pasted URL before it goes to the session (which checks it again): it must be the redirect URI
/// (scheme, host, port, path) and carry the request's `state`, once; a sign-in's also a code or an error (a
/// sign-out's post-logout redirect carries only the state). Says what is wrong, in plain words.
enum PastedURLCheck {
    static func problem(pasted: String, redirectURI: String, authorizationURL: String, signOut: Bool = false) -> String?
    {
        let flow = signOut ? "sign-out" : "sign-in"
        guard let got = URLComponents(string: pasted), got.scheme != nil else {
            return
                "that is not a URL; paste the whole address, starting with \(redirectURI.prefix(while: { $0 != ":" })):"
        }
        guard let want = URLComponents(string: redirectURI) else { return nil }
        func port(_ components: URLComponents) -> Int? {
            components.port ?? (components.scheme == "https" ? 443 : components.scheme == "http" ? 80 : nil)
        }
        if got.scheme?.lowercased() != want.scheme?.lowercased() || got.host?.lowercased() != want.host?.lowercased()
            || port(got) != port(want)
            || (got.percentEncodedPath.isEmpty ? "/" : got.percentEncodedPath)
                != (want.percentEncodedPath.isEmpty ? "/" : want.percentEncodedPath)
        {
            return
                "that address is not this \(flow)'s redirect (\(redirectURI)); paste the address the browser ended on"
        }
        let expected = URLComponents(string: authorizationURL)?.queryItems?.first { $0.name == "state" }?.value
        let states = got.queryItems?.filter { $0.name == "state" } ?? []
        if let expected {
            if states.count != 1 || states[0].value != expected {
                return
                    "that address belongs to another \(flow) (its state does not match); paste the address from this one"
            }
        }
        let names = Set(got.queryItems?.map(\.name) ?? [])
        if !signOut, !names.contains("code") && !names.contains("error") {
            return
                "that address has neither a code nor an error; wait until the sign-in finishes, then paste the address"
        }
        return nil
    }
}
