// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// A whole HTTP response as ``CurlClient`` read it: the final status (after any `1xx`), that answer's header
/// fields in order, and the body (decoded if the server compressed it).
public struct CurlResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of the field `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}
