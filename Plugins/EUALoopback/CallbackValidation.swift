// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentRules
import ExternalUserAgentNet

/// Decides what one request to the loopback listener is: the real redirect, or something to refuse.
///
/// Pure: no sockets, no state beyond what it is given, so each rule is easy to read and test.
package struct CallbackValidation: Sendable {
    /// What the listener expects.
    let path: String
    let port: Int
    let expectedState: String?
    /// A sign-out's post-logout redirect: `state` is all it carries, and it must be the expected one.
    let signOut: Bool

    package init(path: String, port: Int, expectedState: String?, signOut: Bool = false) {
        self.path = path
        self.port = port
        self.expectedState = expectedState
        self.signOut = signOut
    }

    package enum Verdict: Equatable {
        /// The redirect: its query parameters, and whether it carries an OAuth `error`.
        case callback(parameters: [String: String], query: String, isError: Bool)
        /// Refused: status code and a short reason for the page (never request data).
        case refuse(HTTPStatus, String)
    }

    /// Parameters that must appear at most once (RFC 6749 §3.1, RFC 9207).
    static let singleParameters: Set<String> = ["code", "state", "iss", "error", "error_description", "error_uri"]

    /// The verdict on one request head.
    package func check(_ head: HTTPRequestHead) -> Verdict {
        guard head.method == "GET" else {
            return .refuse(.methodNotAllowed, "Only GET is served here.")
        }
        guard head.target.utf8.count <= LoopbackOptions.maxTargetLength else {
            return .refuse(.uriTooLong, "The address is too long.")
        }
        guard head.target.hasPrefix("/") else {
            return .refuse(.badRequest, "Only origin-form request targets are served here.")
        }
        // A browser never sends a fragment, spaces, controls or raw non-ASCII bytes: it escapes them.
        // Refused here, so that the URL the app is handed reads exactly as the query checked below
        // (`?code=a#b&state=S` would otherwise pass here and lose its state in the app).
        guard head.target.utf8.allSatisfy(Self.isTargetByte) else {
            return .refuse(.badRequest, "The address holds a character that has no place in a request (such as '#').")
        }
        guard head.hostValues.count == 1, allowedHost(head.hostValues[0]) else {
            return .refuse(
                .misdirectedRequest, "This listener only answers requests addressed to the loopback interface.")
        }
        let target = head.target
        let pathPart: Substring
        let query: Substring
        if let mark = target.firstIndex(of: "?") {
            pathPart = target[..<mark]
            query = target[target.index(after: mark)...]
        } else {
            pathPart = target[...]
            query = ""
        }
        guard pathPart == path else {
            return .refuse(.notFound, "Nothing is served at this address.")
        }
        guard let pairs = FormCoding.strictPairs(query) else {
            return .refuse(.badRequest, "The address holds a malformed query.")
        }
        var parameters: [String: String] = [:]
        for (name, value) in pairs {
            if Self.singleParameters.contains(name), parameters[name] != nil {
                return .refuse(.badRequest, "A parameter is repeated.")
            }
            parameters[name] = parameters[name] ?? value
        }
        if signOut, expectedState == nil {
            return .refuse(.badRequest, "This sign-out was started without a state to check.")
        }
        if let expectedState {
            guard let state = parameters["state"] else {
                return .refuse(.badRequest, "The redirect has no state parameter.")
            }
            guard Self.constantTimeEquals(state, expectedState) else {
                return .refuse(.badRequest, "The redirect's state does not belong to this sign-in.")
            }
        }
        let isError = parameters["error"] != nil
        guard isError || parameters["code"] != nil || signOut else {
            return .refuse(.badRequest, "The redirect has neither a code nor an error.")
        }
        return .callback(parameters: parameters, query: String(query), isError: isError)
    }

    /// Printable ASCII but `#`: what a browser may put in a request target unescaped.
    private static func isTargetByte(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "#")
    }

    /// `127.0.0.1:PORT`, `[::1]:PORT` or `localhost:PORT` (no `:PORT` for port 80, as browsers send it),
    /// ASCII letters in any case (DNS rebinding defence: any other name is refused).
    /// Whether a request's `Host` fields name this listener on a loopback address (one field only).
    func isLoopbackHost(_ values: [String]) -> Bool {
        values.count == 1 && allowedHost(values[0])
    }

    private func allowedHost(_ value: String) -> Bool {
        let lower = String(decoding: value.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
        if port == 80, ["127.0.0.1", "[::1]", "localhost"].contains(lower) { return true }
        return ["127.0.0.1:\(port)", "[::1]:\(port)", "localhost:\(port)"].contains(lower)
    }

    private static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
