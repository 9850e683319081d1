// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// A whole HTTP/1.1 response: status, header fields in order, and the body (de-chunked).
package struct HTTPResponse: Equatable, Sendable {
    package var status: Int
    package var headers: [HTTPField]
    package var body: [UInt8]

    package init(status: Int, headers: [HTTPField], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of the field `name` (case-insensitive).
    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Every value of the field `name` (case-insensitive), in order.
    package func headers(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }
}
