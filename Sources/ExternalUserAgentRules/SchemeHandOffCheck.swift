// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// Decides what one hand-off to the `scheme` receiver is: the redirect, or something to refuse. Pure: no sockets.
package struct SchemeHandOffCheck: Sendable {
    let scheme: String
    let path: String
    let expectedState: String?
    let ownUID: UInt32
    /// A sign-out's post-logout redirect: the expected `state` is all it carries.
    let signOut: Bool

    package init(scheme: String, path: String, expectedState: String?, ownUID: UInt32, signOut: Bool = false) {
        self.scheme = scheme
        self.path = path
        self.expectedState = expectedState
        self.ownUID = ownUID
        self.signOut = signOut
    }

    package enum Verdict: Equatable {
        /// The redirect URL, to hand to the session.
        case callback(String)
        /// Refused: a status for the host's count (HTTP-like) and a fixed reason (never the URL).
        case refuse(status: Int, reason: String)
    }

    /// Parameters that must appear at most once (RFC 6749 §3.1, RFC 9207).
    static let singleParameters: Set<String> = ["code", "state", "iss", "error", "error_description", "error_uri"]

    /// Refusal of a peer whose uid is not this process's (`SO_PEERCRED`), else `nil`.
    package func checkPeer(uid: UInt32) -> Verdict? {
        uid == ownUID ? nil : .refuse(status: 403, reason: "the hand-off came from another user (uid \(uid))")
    }

    /// The verdict on the bytes a handler sent (the URL, its line feed already removed).
    package func check(_ bytes: [UInt8]) -> Verdict {
        guard bytes.count <= PrivateUseScheme.maximumURLBytes else {
            return .refuse(status: 414, reason: "the URL is longer than \(PrivateUseScheme.maximumURLBytes) bytes")
        }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "#") }) else {
            return .refuse(
                status: 400, reason: "the URL holds a space, a control character, a fragment or raw non-ASCII bytes")
        }
        let url = String(decoding: bytes, as: UTF8.self)
        guard let colon = url.firstIndex(of: ":"), url[..<colon].lowercased() == scheme else {
            return .refuse(status: 404, reason: "the URL is not of the scheme '\(scheme)' this flow waits on")
        }
        let rest = url[url.index(after: colon)...]
        let mark = rest.firstIndex(of: "?") ?? rest.endIndex
        guard rest[..<mark] == path else {
            return .refuse(status: 404, reason: "the URL's path is not the redirect URI's '\(path)'")
        }
        let query = mark == rest.endIndex ? Substring("") : rest[rest.index(after: mark)...]
        guard let pairs = FormCoding.strictPairs(query) else {
            return .refuse(status: 400, reason: "the URL holds a malformed query")
        }
        var parameters: [String: String] = [:]
        for (name, value) in pairs {
            if Self.singleParameters.contains(name), parameters[name] != nil {
                return .refuse(status: 400, reason: "a parameter is repeated")
            }
            parameters[name] = parameters[name] ?? value
        }
        if signOut, expectedState == nil {
            return .refuse(status: 400, reason: "this sign-out was started without a state to check")
        }
        if let expectedState {
            guard let state = parameters["state"] else {
                return .refuse(status: 400, reason: "the redirect has no state parameter")
            }
            guard Self.constantTimeEquals(state, expectedState) else {
                return .refuse(status: 400, reason: "the redirect's state does not belong to this sign-in")
            }
        }
        guard parameters["error"] != nil || parameters["code"] != nil || signOut else {
            return .refuse(status: 400, reason: "the redirect has neither a code nor an error")
        }
        return .callback(url)
    }

    private static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
