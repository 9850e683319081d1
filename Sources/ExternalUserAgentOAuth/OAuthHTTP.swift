#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import AsyncHTTPClient
import NIOCore
import NIOHTTP1

/// The HTTP requests the OAuth client makes (metadata, JWKS, token endpoint), over AsyncHTTPClient.
///
/// Bodies are limited in size and every request has a deadline. Uses `HTTPClient.shared` unless
/// given a client of the caller's, which the caller then shuts down.
public struct OAuthHTTP: Sendable {
    /// A response, read whole.
    public struct Response: Sendable {
        public var status: Int
        public var contentType: String?
        public var body: Data
    }

    private let client: HTTPClient
    /// How long one request may take, connection attempts included (AsyncHTTPClient retries a refused
    /// connection until then).
    public var timeout: Duration
    /// The largest body accepted.
    public var maximumBodyBytes: Int

    public init(client: HTTPClient = .shared, timeout: Duration = .seconds(15), maximumBodyBytes: Int = 1 << 20) {
        self.client = client
        self.timeout = timeout
        self.maximumBodyBytes = maximumBodyBytes
    }

    /// GETs `url`, asking for JSON.
    public func get(_ url: URL) async throws -> Response {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .GET
        request.headers.add(name: "Accept", value: "application/json")
        return try await execute(request)
    }

    /// POSTs `fields` as `application/x-www-form-urlencoded`, with `authorization` as the
    /// `Authorization` header when given.
    public func postForm(_ url: URL, fields: [(String, String)], authorization: String? = nil) async throws -> Response {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        if let authorization { request.headers.add(name: "Authorization", value: authorization) }
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode(fields)))
        return try await execute(request)
    }

    private func execute(_ request: HTTPClientRequest) async throws -> Response {
        let seconds = Int64(timeout.components.seconds)
        let response = try await client.execute(request, timeout: .seconds(max(1, seconds)))
        let body = try await response.body.collect(upTo: maximumBodyBytes)
        return Response(status: Int(response.status.code), contentType: response.headers.first(name: "Content-Type"),
                        body: Data(body.readableBytesView))
    }
}
