// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// A response status: its code and reason phrase.
package struct HTTPStatus: Equatable, Sendable {
    package var code: Int
    package var reason: String

    package init(_ code: Int, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    package static let ok = HTTPStatus(200, "OK")
    package static let found = HTTPStatus(302, "Found")
    package static let badRequest = HTTPStatus(400, "Bad Request")
    package static let notFound = HTTPStatus(404, "Not Found")
    package static let methodNotAllowed = HTTPStatus(405, "Method Not Allowed")
    package static let conflict = HTTPStatus(409, "Conflict")
    package static let uriTooLong = HTTPStatus(414, "URI Too Long")
    package static let misdirectedRequest = HTTPStatus(421, "Misdirected Request")
    package static let requestHeaderFieldsTooLarge = HTTPStatus(431, "Request Header Fields Too Large")

    /// The status `code` with its reason phrase: the registered one for the codes servers here send, else the
    /// class's (`Client Error` for an unlisted 4xx).
    package init(code: Int) {
        if let known = Self.reasons.first(where: { $0.code == code }) {
            self = known
        } else {
            self.init(
                code,
                ["Informational", "OK", "Redirect", "Client Error", "Server Error"][min(max(code / 100 - 1, 0), 4)])
        }
    }

    private static let reasons: [HTTPStatus] = [
        ok, HTTPStatus(201, "Created"), HTTPStatus(204, "No Content"), found, HTTPStatus(303, "See Other"),
        badRequest, HTTPStatus(401, "Unauthorized"), HTTPStatus(403, "Forbidden"), notFound, methodNotAllowed, conflict,
        uriTooLong, misdirectedRequest, HTTPStatus(429, "Too Many Requests"), requestHeaderFieldsTooLarge,
        HTTPStatus(500, "Internal Server Error"), HTTPStatus(503, "Service Unavailable"),
    ]
}
