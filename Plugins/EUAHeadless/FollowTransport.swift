// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import CurlClient
import FoundationEssentials
import ExternalUserAgentNet
#if canImport(Glibc)
import Glibc
#endif

/// How follow mode fetches: `http` over plain sockets (``MiniHTTPClient``), `https` through libcurl, opened on
/// the flow's first `https` request — a plain-http sign-in never loads libcurl, libssl, libcrypto or Kerberos
/// (about 9 MiB and several milliseconds). Plain `http` to a host that is not loopback goes through libcurl too
/// when the environment names a proxy (`http_proxy`, `all_proxy`), which curl applies with `no_proxy`. One
/// ``CookieJar`` serves both, so a flow that goes from `http` to `https` keeps its cookies; libcurl's own cookie
/// engine stays off.
struct FollowTransport {
    /// What failed, already worded for the user (the URL without its query, then why).
    struct Failure: Error, CustomStringConvertible {
        var description: String
        var untrustedCertificate = false
    }

    let caFile: String?
    let stop: StopSignal
    private(set) var cookies = CookieJar()
    private var curl: CurlClient?

    /// Whether this flow has opened libcurl (it made an `https` request).
    var usesLibcurl: Bool { curl != nil }

    init(caFile: String?, stop: StopSignal) {
        self.caFile = caFile
        self.stop = stop
    }

    /// Sends one request with the jar's cookies, stores the cookies of the answer, and returns it;
    /// throws ``NetworkError/stopped`` when stopped, else a ``Failure``.
    mutating func send(
        method: String, url: URL, headers: [(String, String)], body: [UInt8]?,
        timeout: Duration, maximumBodyBytes: Int
    ) throws -> HTTPResponse {
        var headers = headers
        if let cookie = cookies.header(for: url) { headers.append(("Cookie", cookie)) }
        let response =
            Self.needsLibcurl(url, proxy: Self.proxyVariable)
            ? try sendOverCurl(
                method: method, url: url, headers: headers, body: body, timeout: timeout,
                maximumBodyBytes: maximumBodyBytes)
            : try sendOverSocket(
                method: method, url: url, headers: headers, body: body, timeout: timeout,
                maximumBodyBytes: maximumBodyBytes)
        for field in response.headers("Set-Cookie") { cookies.store(field, from: url) }
        return response
    }

    /// Whether `url` goes through libcurl: `https`, or `http` to a host that is not loopback while `proxy` (the
    /// environment's proxy variable) is set.
    static func needsLibcurl(_ url: URL, proxy: String?) -> Bool {
        url.scheme != "http" || (proxy.map { !$0.isEmpty } ?? false) && !BrowserFollow.isLoopback(url)
    }

    /// The proxy variable curl reads for `http` (only the lower-case `http_proxy`, as curl does), if any.
    private static var proxyVariable: String? {
        for name in ["http_proxy", "all_proxy", "ALL_PROXY"] {
            if let value = getenv(name) { return String(cString: value) }
        }
        return nil
    }

    private func sendOverSocket(
        method: String, url: URL, headers: [(String, String)], body: [UInt8]?,
        timeout: Duration, maximumBodyBytes: Int
    ) throws -> HTTPResponse {
        let place = "\(method) \(BrowserFollow.describe(url))"
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        guard let host = components?.host, !host.isEmpty else {
            throw Failure(description: "\(place): the URL has no host")
        }
        var target = components?.percentEncodedPath ?? "/"
        if target.isEmpty { target = "/" }
        if let query = components?.percentEncodedQuery { target += "?" + query }
        do {
            return try MiniHTTPClient.send(
                method: method, host: host, port: components?.port ?? 80, target: target,
                headers: headers, body: body, stop: stop,
                connectTimeout: min(timeout, MiniHTTPClient.connectTimeout), exchangeTimeout: timeout,
                maximumBodyBytes: maximumBodyBytes)
        } catch let error as NetworkError where error.kind == .stopped {
            throw error
        } catch {
            throw Failure(description: "\(place): \(error)")
        }
    }

    private mutating func sendOverCurl(
        method: String, url: URL, headers: [(String, String)], body: [UInt8]?,
        timeout: Duration, maximumBodyBytes: Int
    ) throws -> HTTPResponse {
        do throws(CurlError) {
            let client = try openedCurl(maximumBodyBytes: maximumBodyBytes)
            let response = try client.send(
                CurlRequest(
                    method: method, url: url.absoluteString,
                    headers: headers.map { (name: $0.0, value: $0.1) }, body: body),
                timeout: timeout, stopDescriptor: stop.descriptor)
            return HTTPResponse(
                status: response.status, headers: response.headers.map { HTTPField(name: $0.name, value: $0.value) },
                body: response.body)
        } catch  where error.kind == .stopped {
            throw NetworkError.stopped
        } catch  where error.kind == .unavailable {
            throw Failure(description: "https needs libcurl (libcurl4 or libcurl3-gnutls, 7.85 or newer): \(error)")
        } catch {
            throw Failure(description: "\(error)", untrustedCertificate: error.kind == .untrustedCertificate)
        }
    }

    /// The flow's libcurl client, made (and libcurl opened) on the first `https` request.
    private mutating func openedCurl(maximumBodyBytes: Int) throws(CurlError) -> CurlClient {
        if let curl { return curl }
        let client = try CurlClient(
            .init(
                caFile: caFile, keepsCookies: false, maximumBodyBytes: maximumBodyBytes,
                connectTimeout: .seconds(10), userAgent: "eua-headless/\(HeadlessPlugin.version)"))
        curl = client
        return client
    }
}
