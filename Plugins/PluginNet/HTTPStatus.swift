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
}
