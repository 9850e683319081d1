// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentRules
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The HTTP requests the OAuth client makes (metadata, JWKS, token endpoint), over `HTTPRequestClient`.
///
/// One connection per request; bodies are limited in size and every request has a deadline. https uses
/// the system's trust roots and checks the host name. A GET follows up to five redirects (never from
/// https to http); a POST follows none. Failures are ``HTTPRequestError``s.
public struct OAuthHTTP: Sendable {
    /// A response, read whole.
    public struct Response: Sendable {
        /// The HTTP status code (`200`, `404`…).
        public var status: Int
        /// The `Content-Type` header as sent (`application/json; charset=utf-8`); `nil` when there is none.
        public var contentType: String?
        /// The whole body, at most ``OAuthHTTP/maximumBodyBytes`` bytes.
        public var body: Data
        /// The `Date` header as sent, when there is one (``ProviderCheck`` estimates clock skew from it).
        public var date: String? = nil
        /// Every header as sent, in order.
        public var headers: [(name: String, value: String)] = []

        /// The first header named `name` (any case), when there is one.
        public func header(named name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    /// How long one request may take: name lookup, connecting, TLS, redirects and the whole body. A refused
    /// connection fails at once.
    public var timeout: Duration
    /// The largest body accepted.
    public var maximumBodyBytes: Int
    /// When the whole flow must be over (``SignInFlow`` sets it from its timeout): every request ends by
    /// then, however much of ``timeout`` is left; `nil`: each request has ``timeout`` only.
    public var deadline: ContinuousClock.Instant?
    /// A PEM file of the CAs to trust for https; `nil` for the system's trust store (tests bring their own).
    var caFile: String?

    static let maximumRedirects = 5

    /// A client with `timeout` per request (15 s by default), bodies up to `maximumBodyBytes` (1 MiB by default),
    /// no ``deadline``, and the system's trust roots for https.
    public init(timeout: Duration = .seconds(15), maximumBodyBytes: Int = 1 << 20) {
        self.timeout = timeout
        self.maximumBodyBytes = maximumBodyBytes
    }

    /// A client whose time limit is ``timeout``, or what is left until ``deadline`` when that is less.
    private var client: HTTPRequestClient {
        var limit = timeout
        var byDeadline = false
        if let deadline {
            let left = ContinuousClock.now.duration(to: deadline)
            if left < limit {
                limit = max(left, .milliseconds(1))
                byDeadline = true
            }
        }
        return HTTPRequestClient(
            timeout: limit, maximumBodyBytes: maximumBodyBytes, caFile: caFile,
            limitedByDeadline: byDeadline)
    }

    /// This client with ``deadline`` set to `timeout` from now (`nil` leaves it as it is).
    public func ending(after timeout: Duration?) -> OAuthHTTP {
        guard let timeout else { return self }
        var copy = self
        copy.deadline = ContinuousClock.now + timeout
        return copy
    }

    private static let headers: [(name: String, value: String)] = [
        ("Accept", "application/json"), ("User-Agent", "eua"),
    ]

    /// GETs `url`, asking for JSON; with `authorization`, that is the `Authorization` header and no redirect is
    /// followed (the credential must not travel on to another URL).
    public func get(_ url: URL, authorization: String? = nil) async throws -> Response {
        let start = ContinuousClock.now
        var url = url
        var headers = Self.headers
        if let authorization { headers.append(("Authorization", authorization)) }
        for _ in 0...Self.maximumRedirects {
            let response = try await client.execute("GET", url, headers: headers, start: start)
            guard authorization == nil, [301, 302, 303, 307, 308].contains(response.status),
                let location = response.header("Location")
            else {
                return Response(response)
            }
            url = try Self.redirect(from: url, to: location)
        }
        let server = (try? HTTPTarget(url).server) ?? ""
        throw HTTPRequestError(
            .failed, server: server,
            "more than \(Self.maximumRedirects) redirects, the last to \(server); check the URL")
    }

    /// GETs `url` with `authorization` as the `Authorization` header (a bearer token) and `accept` as
    /// `Accept`, then `extraHeaders` (a `DPoP` proof). Follows no redirect, so the credential never goes to another server.
    public func get(
        _ url: URL, authorization: String, accept: String,
        headers extraHeaders: [(String, String)] = []
    ) async throws -> Response {
        let headers = [("Accept", accept), ("User-Agent", "eua"), ("Authorization", authorization)] + extraHeaders
        return Response(try await client.execute("GET", url, headers: headers.map { (name: $0.0, value: $0.1) }))
    }

    /// POSTs `fields` as `application/x-www-form-urlencoded`, with `authorization` as the
    /// `Authorization` header when given, and `extraHeaders` (a `DPoP` proof) after the others.
    public func postForm(
        _ url: URL, fields: [(String, String)], authorization: String? = nil,
        headers extraHeaders: [(String, String)] = []
    ) async throws -> Response {
        var headers = Self.headers
        headers.append(("Content-Type", "application/x-www-form-urlencoded"))
        if let authorization { headers.append(("Authorization", authorization)) }
        headers += extraHeaders.map { (name: $0.0, value: $0.1) }
        return Response(
            try await client.execute("POST", url, headers: headers, body: Array(FormCoding.encode(fields).utf8)))
    }

    /// POSTs `body` as `application/json`, with `authorization` as the `Authorization` header when given.
    public func postJSON(_ url: URL, body: Data, authorization: String? = nil) async throws -> Response {
        var headers = Self.headers
        headers.append(("Content-Type", "application/json"))
        if let authorization { headers.append(("Authorization", authorization)) }
        return Response(try await client.execute("POST", url, headers: headers, body: Array(body)))
    }

    /// Where a redirect from `url` leads; never from https to http.
    private static func redirect(from url: URL, to location: String) throws -> URL {
        let server = (try? HTTPTarget(url).server) ?? ""
        guard let next = URL(string: location, relativeTo: url)?.absoluteURL else {
            throw HTTPRequestError(
                .failed, server: server,
                "\(server) redirected to a Location that is not a URL; check the URL")
        }
        if url.scheme?.lowercased() == "https", next.scheme?.lowercased() != "https" {
            throw HTTPRequestError(
                .failed, server: server,
                "\(server) redirected to a URL that is not https; refused, so that nothing is fetched unprotected")
        }
        return next
    }
}

extension OAuthHTTP.Response {
    init(_ response: HTTPRequestClient.Response) {
        self.init(
            status: response.status, contentType: response.header("Content-Type"), body: Data(response.body),
            date: response.header("Date"), headers: response.headers)
    }
}
