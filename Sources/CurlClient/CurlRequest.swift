// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// One HTTP request for ``CurlClient``: method, absolute `http`/`https` URL, header fields and a body.
public struct CurlRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?

    public init(
        method: String = "GET", url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}
