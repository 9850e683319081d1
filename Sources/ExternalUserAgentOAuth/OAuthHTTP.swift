import ExternalUserAgentWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOHTTP1
import NIOSSL

/// The HTTP requests the OAuth client makes (metadata, JWKS, token endpoint), over ``HTTPRequestClient``.
///
/// One connection per request; bodies are limited in size and every request has a deadline. https uses
/// the system's trust roots and checks the host name. A GET follows up to five redirects (never from
/// https to http); a POST follows none. Failures are ``HTTPRequestError``s.
public struct OAuthHTTP: Sendable {
    /// A response, read whole.
    public struct Response: Sendable {
        public var status: Int
        public var contentType: String?
        public var body: Data
    }

    /// How long one request may take: name lookup, connecting, TLS, redirects and the whole body. A refused
    /// connection fails at once.
    public var timeout: Duration
    /// The largest body accepted.
    public var maximumBodyBytes: Int
    /// The TLS context for https; `nil` for the system's trust roots (tests bring their own).
    var tlsContext: NIOSSLContext?

    static let maximumRedirects = 5

    public init(timeout: Duration = .seconds(15), maximumBodyBytes: Int = 1 << 20) {
        self.timeout = timeout
        self.maximumBodyBytes = maximumBodyBytes
    }

    private var client: HTTPRequestClient {
        HTTPRequestClient(timeout: timeout, maximumBodyBytes: maximumBodyBytes, tlsContext: tlsContext)
    }

    private static let headers: HTTPHeaders = ["Accept": "application/json", "User-Agent": "eua"]

    /// GETs `url`, asking for JSON.
    public func get(_ url: URL) async throws -> Response {
        let start = NIODeadline.now()
        var url = url
        for _ in 0...Self.maximumRedirects {
            let response = try await client.execute(.GET, url, headers: Self.headers, start: start)
            guard [301, 302, 303, 307, 308].contains(response.status),
                  let location = response.headers.first(name: "Location") else {
                return Response(response)
            }
            url = try Self.redirect(from: url, to: location)
        }
        let server = (try? HTTPTarget(url).server) ?? ""
        throw HTTPRequestError(.failed, server: server,
            "more than \(Self.maximumRedirects) redirects, the last to \(server); check the URL")
    }

    /// POSTs `fields` as `application/x-www-form-urlencoded`, with `authorization` as the
    /// `Authorization` header when given.
    public func postForm(_ url: URL, fields: [(String, String)], authorization: String? = nil) async throws -> Response {
        var headers = Self.headers
        headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        if let authorization { headers.add(name: "Authorization", value: authorization) }
        let body = ByteBuffer(string: FormCoding.encode(fields))
        return Response(try await client.execute(.POST, url, headers: headers, body: body))
    }

    /// Where a redirect from `url` leads; never from https to http.
    private static func redirect(from url: URL, to location: String) throws -> URL {
        let server = (try? HTTPTarget(url).server) ?? ""
        guard let next = URL(string: location, relativeTo: url)?.absoluteURL else {
            throw HTTPRequestError(.failed, server: server,
                "\(server) redirected to a Location that is not a URL; check the URL")
        }
        if url.scheme?.lowercased() == "https", next.scheme?.lowercased() != "https" {
            throw HTTPRequestError(.failed, server: server,
                "\(server) redirected to a URL that is not https; refused, so that nothing is fetched unprotected")
        }
        return next
    }
}

extension OAuthHTTP.Response {
    init(_ response: HTTPRequestClient.Response) {
        self.init(status: response.status, contentType: response.headers.first(name: "Content-Type"),
                  body: Data(response.body.readableBytesView))
    }
}
