// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentSystem
import CCurl
import ExternalUserAgentNet
#if canImport(Glibc)
import Glibc
#endif

/// Blocking HTTP/1.1 and HTTP/2 requests over `http` and `https`, through libcurl (opened on first use, see
/// `ccurl.h`): the system's trust store or a CA file, a connect timeout and a deadline per request, a cap on
/// the body, and, when asked, a cookie engine of its own (cookies live as long as the client, never on disk).
///
/// Redirects are never followed: a `3xx` is returned as it is, so the caller decides where to go next.
/// Proxies are taken from the environment (`https_proxy`, `no_proxy`) as curl does, never for a loopback host.
/// One client serves one thread at a time; it is not `Sendable`.
public final class CurlClient {
    /// How every request of a client is made.
    public struct Configuration: Sendable {
        /// PEM file of the CAs to trust instead of the system's store; `nil`: the system's store.
        public var caFile: String?
        /// Keep cookies the server sets and send them back (per client, in memory only).
        public var keepsCookies: Bool
        /// The largest body read; a longer one fails with ``CurlError/Kind/tooLarge``.
        public var maximumBodyBytes: Int
        /// How long connecting (TCP and TLS) may take.
        public var connectTimeout: Duration
        /// The `User-Agent` header.
        public var userAgent: String

        public init(
            caFile: String? = nil, keepsCookies: Bool = false, maximumBodyBytes: Int = 2 << 20,
            connectTimeout: Duration = .seconds(10), userAgent: String
        ) {
            self.caFile = caFile
            self.keepsCookies = keepsCookies
            self.maximumBodyBytes = maximumBodyBytes
            self.connectTimeout = connectTimeout
            self.userAgent = userAgent
        }
    }

    public let configuration: Configuration
    private let easy: UnsafeMutableRawPointer
    private let multi: UnsafeMutableRawPointer
    private let errorText: UnsafeMutablePointer<CChar>

    /// Opens libcurl if it is not yet open and makes a client; fails with ``CurlError/Kind/unavailable``
    /// when libcurl is missing or too old.
    public init(_ configuration: Configuration) throws(CurlError) {
        if let failure = ccurl_load() {
            throw CurlError(.unavailable, String(cString: failure))
        }
        guard let easy = ccurl_easy_init() else { throw CurlError(.unavailable, "curl_easy_init failed") }
        guard let multi = ccurl_multi_init() else {
            ccurl_easy_cleanup(easy)
            throw CurlError(.unavailable, "curl_multi_init failed")
        }
        self.configuration = configuration
        self.easy = easy
        self.multi = multi
        errorText = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorText.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        try setUp()
    }

    deinit {
        ccurl_easy_cleanup(easy)
        _ = ccurl_multi_cleanup(multi)
        errorText.deallocate()
    }

    private func setUp() throws(CurlError) {
        try set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorText))
        try set(CURLOPT_NOSIGNAL, 1)
        // Only http and https, and never a redirect followed by curl.
        if ccurl_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK {
            throw CurlError(
                .unavailable, "libcurl \(String(cString: ccurl_version())) is too old: 7.85 or newer is needed")
        }
        try set(CURLOPT_FOLLOWLOCATION, 0)
        try set(CURLOPT_SSL_VERIFYPEER, 1)
        try set(CURLOPT_SSL_VERIFYHOST, 2)
        try set(CURLOPT_SSLVERSION, CURL_SSLVERSION_TLSv1_2)
        if let caFile = configuration.caFile { try set(CURLOPT_CAINFO, caFile) }
        // An empty name turns the cookie engine on without reading any file.
        if configuration.keepsCookies { try set(CURLOPT_COOKIEFILE, "") }
        try set(CURLOPT_ACCEPT_ENCODING, "")
        // Proxies as the environment says, but never for a loopback host.
        let noProxy = (getenv("no_proxy") ?? getenv("NO_PROXY")).map { String(cString: $0) + "," } ?? ""
        try set(CURLOPT_NOPROXY, noProxy + "localhost,127.0.0.1,::1")
        try set(CURLOPT_USERAGENT, configuration.userAgent)
        try set(CURLOPT_MAXFILESIZE_LARGE, offset: Int64(configuration.maximumBodyBytes))
        try set(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(configuration.connectTimeout))
        try check(ccurl_setopt_callback(easy, CURLOPT_WRITEFUNCTION, Transfer.receiveBody), CURLOPT_WRITEFUNCTION)
        try check(ccurl_setopt_callback(easy, CURLOPT_HEADERFUNCTION, Transfer.receiveHeader), CURLOPT_HEADERFUNCTION)
    }

    /// Sends `request` and reads the whole answer, within `timeout` (connecting included); a readable
    /// `stopDescriptor` (an eventfd a canceller raises) ends the wait at once with ``CurlError/Kind/stopped``.
    public func send(_ request: CurlRequest, timeout: Duration, stopDescriptor: Int32? = nil) throws(CurlError)
        -> CurlResponse
    {
        let place = "\(request.method) \(Self.withoutQuery(request.url))"
        guard request.url.hasPrefix("http://") || request.url.hasPrefix("https://") else {
            throw CurlError(.invalidRequest, "\(place): only http and https URLs are fetched")
        }
        for (name, value) in request.headers {
            let text = name + value
            guard !text.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }), !name.contains(":") else {
                throw CurlError(
                    .invalidRequest, "\(place): the header '\(name.prefix(40))' holds a line break or colon")
            }
        }
        guard !request.method.isEmpty, request.method.utf8.allSatisfy({ (0x41...0x5A).contains($0) }) else {
            throw CurlError(.invalidRequest, "\(place): the method is not an upper-case token")
        }
        let transfer = Transfer(maximumBodyBytes: configuration.maximumBodyBytes)
        var headerList: UnsafeMutablePointer<curl_slist>?
        // No `Expect: 100-continue` wait before a body.
        for line in request.headers.map({ "\($0.name): \($0.value)" }) + ["Expect:"] {
            headerList = ccurl_slist_append(headerList, line)
        }
        defer { ccurl_slist_free_all(headerList) }
        errorText[0] = 0
        try set(CURLOPT_URL, request.url)
        try set(CURLOPT_HTTPHEADER, pointer: headerList.map(UnsafeMutableRawPointer.init))
        try set(CURLOPT_CUSTOMREQUEST, nil)
        switch request.method {
        case "GET" where request.body == nil:
            try set(CURLOPT_HTTPGET, 1)
        case "POST":
            try set(CURLOPT_POST, 1)
            try set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(request.body?.count ?? 0))
            // COPYPOSTFIELDS copies the bytes (POSTFIELDSIZE of them), so they need not outlive this call.
            if let body = request.body, !body.isEmpty {
                let copied = body.withUnsafeBytes { bytes in
                    ccurl_setopt_pointer(
                        easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
                }
                try check(copied, CURLOPT_COPYPOSTFIELDS)
            } else {
                try set(CURLOPT_COPYPOSTFIELDS, "")
            }
        default:
            throw CurlError(.invalidRequest, "\(place): only GET and POST are sent")
        }
        try set(CURLOPT_TIMEOUT_MS, Self.milliseconds(timeout))
        let context = Unmanaged.passRetained(transfer)
        defer { context.release() }
        try set(CURLOPT_WRITEDATA, pointer: context.toOpaque())
        try set(CURLOPT_HEADERDATA, pointer: context.toOpaque())

        let code = try perform(place: place, timeout: timeout, stopDescriptor: stopDescriptor)
        guard code == CURLE_OK else { throw failure(code, place: place, timeout: timeout, transfer: transfer) }
        var status = 0
        _ = ccurl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        guard (100...599).contains(status) else {
            throw CurlError(.failed, "\(place): the server answered with status \(status), not an HTTP status")
        }
        return CurlResponse(status: status, headers: transfer.headers, body: transfer.body)
    }

    /// Runs the transfer on the multi handle, so a stop descriptor can end the wait; the transfer's result.
    private func perform(place: String, timeout: Duration, stopDescriptor: Int32?) throws(CurlError) -> CURLcode {
        let deadline = ContinuousClock.now + timeout
        guard ccurl_multi_add_handle(multi, easy) == CURLM_OK else {
            throw CurlError(.failed, "\(place): curl_multi_add_handle failed")
        }
        defer { _ = ccurl_multi_remove_handle(multi, easy) }
        var running: Int32 = 1
        while true {
            let performed = ccurl_multi_perform(multi, &running)
            guard performed == CURLM_OK else {
                throw CurlError(.failed, "\(place): \(String(cString: ccurl_multi_strerror(performed)))")
            }
            if running == 0 { return ccurl_multi_result(multi, easy) }
            // curl's own timeout ends the transfer; this one only guards against a wait that outlives it.
            guard ContinuousClock.now < deadline + .seconds(1) else {
                throw CurlError(.timedOut, "\(place) took longer than \(timeout.spoken)")
            }
            var stop = pollfd(fd: stopDescriptor ?? -1, events: Int16(POLLIN), revents: 0)
            var ready: Int32 = 0
            let polled =
                stopDescriptor == nil
                ? ccurl_multi_poll(multi, nil, 0, 200, &ready)
                : ccurl_multi_poll(multi, &stop, 1, 200, &ready)
            guard polled == CURLM_OK else {
                throw CurlError(.failed, "\(place): \(String(cString: ccurl_multi_strerror(polled)))")
            }
            if stop.revents & Int16(POLLIN) != 0 {
                throw CurlError(.stopped, "\(place) was stopped")
            }
        }
    }

    private func failure(_ code: CURLcode, place: String, timeout: Duration, transfer: Transfer) -> CurlError {
        let detail = errorText[0] != 0 ? String(cString: errorText) : String(cString: ccurl_easy_strerror(code))
        switch code {
        case CURLE_WRITE_ERROR where transfer.tooLarge, CURLE_FILESIZE_EXCEEDED:
            return CurlError(.tooLarge, "\(place): the answer is larger than \(configuration.maximumBodyBytes) bytes")
        case CURLE_OPERATION_TIMEDOUT:
            return CurlError(
                .timedOut,
                "\(place) took longer than \(timeout.spoken) (connect limit \(configuration.connectTimeout.spoken)): \(detail)"
            )
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT:
            return CurlError(.connect, "\(place): \(detail)")
        case CURLE_PEER_FAILED_VERIFICATION:
            let trust = configuration.caFile.map { "the CAs in \($0)" } ?? "the system's trust store"
            return CurlError(
                .untrustedCertificate,
                "\(place): the server's certificate is not trusted by \(trust) (\(detail))")
        case CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING, CURLE_RECV_ERROR:
            return CurlError(.cutShort, "\(place): \(detail)")
        case CURLE_SSL_CACERT_BADFILE:
            return CurlError(
                .caFile,
                "\(place): the CA file \(configuration.caFile ?? "(system)") could not be read as PEM certificates (\(detail))"
            )
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_USE_SSL_FAILED:
            return CurlError(.tls, "\(place): TLS failed: \(detail)")
        default:
            return CurlError(.failed, "\(place): \(detail)")
        }
    }

    private func set(_ option: CURLoption, _ value: Int) throws(CurlError) {
        try check(ccurl_setopt_long(easy, option, value), option)
    }

    private func set(_ option: CURLoption, offset value: Int64) throws(CurlError) {
        try check(ccurl_setopt_off(easy, option, curl_off_t(value)), option)
    }

    private func set(_ option: CURLoption, _ value: String?) throws(CurlError) {
        try check(ccurl_setopt_string(easy, option, value), option)
    }

    private func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?) throws(CurlError) {
        try check(ccurl_setopt_pointer(easy, option, value), option)
    }

    private func check(_ code: CURLcode, _ option: CURLoption) throws(CurlError) {
        guard code == CURLE_OK else {
            throw CurlError(
                .unavailable, "libcurl refused option \(option.rawValue): \(String(cString: ccurl_easy_strerror(code)))"
            )
        }
    }

    /// A duration as whole milliseconds for curl: at least 1 (0 would mean "no limit"), at most a day.
    static func milliseconds(_ duration: Duration) -> Int {
        Int(min(max(duration.wholeMilliseconds, 1), 86_400_000))
    }

    /// A URL without its query and fragment, which may carry codes.
    static func withoutQuery(_ url: String) -> String {
        String(url.prefix { $0 != "?" && $0 != "#" })
    }
}

/// What one transfer collects, reached from curl's callbacks through their context pointer.
private final class Transfer {
    let maximumBodyBytes: Int
    var body: [UInt8] = []
    var headers: [(name: String, value: String)] = []
    var tooLarge = false

    init(maximumBodyBytes: Int) {
        self.maximumBodyBytes = maximumBodyBytes
    }

    static let receiveBody: ccurl_data_callback = { data, size, count, context in
        guard let context else { return 0 }
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        guard transfer.body.count + length <= transfer.maximumBodyBytes else {
            transfer.tooLarge = true
            return 0
        }
        if let data, length > 0 {
            transfer.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length))
        }
        return length
    }

    /// One header line per call; a status line starts the fields of a new answer (after a `1xx`).
    static let receiveHeader: ccurl_data_callback = { data, size, count, context in
        guard let context else { return 0 }
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        guard let data, length > 0 else { return length }
        let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            transfer.headers = []
        } else if let colon = line.firstIndex(of: ":") {
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingWhitespace()
            transfer.headers.append((name, value))
        }
        return length
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> String {
        // `\r\n` is one Character, a whitespace one.
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
