import ExternalUserAgentWire
import FoundationEssentials
import ExternalUserAgentPluginKit
import PluginNet

/// `mode=follow`: acts like a browser with no person at it. GETs the authorization URL with a
/// cookie jar, follows redirects, submits HTML forms filled with the `form.NAME` options, and stops
/// when the next URL is the redirect URI, which it returns for delivery to the receiver.
struct BrowserFollow {
    let script: HeadlessScript
    let redirectURI: URL
    private let stop: StopSignal
    private var cookies = CookieJar()

    init(script: HeadlessScript, redirectURI: URL, stop: StopSignal) {
        self.script = script
        self.redirectURI = redirectURI
        self.stop = stop
    }

    /// Walks from `authorizationURL` to the callback URL (the redirect URI with the server's answer);
    /// throws ``NetworkError/stopped`` when stopped.
    mutating func callbackURL(from authorizationURL: URL) throws -> URL {
        var url = authorizationURL
        var method = "GET"
        var body: [UInt8]?
        for step in 0...script.maximumSteps {
            if RedirectURIMatch.mismatch(callback: url, redirectURI: redirectURI) == nil { return url }
            guard step < script.maximumSteps else { break }
            if stop.isRaised { throw NetworkError.stopped }
            let response = try fetch(url, method: method, body: body)
            cookies.store(response.headers("Set-Cookie"), from: url)
            if (300..<400).contains(response.status), let location = response.header("Location") {
                guard let next = URL(string: location, relativeTo: url)?.absoluteURL else {
                    throw PluginError("presentationFailed", "headless agent: \(Self.describe(url)) redirected to an unusable Location")
                }
                // 307 and 308 repeat the request as it was; the others become a GET.
                if response.status != 307, response.status != 308 { method = "GET"; body = nil }
                url = next
                continue
            }
            let page = String(decoding: response.body, as: UTF8.self)
            let forms = HTMLForm.forms(in: page)
            guard response.status == 200, let form = choose(forms) else {
                throw PluginError("presentationFailed",
                    "headless agent: \(Self.describe(url)) answered HTTP \(response.status) with "
                        + (forms.isEmpty ? "no form to submit and no redirect" : "forms, none of them usable")
                        + "; the sign-in cannot go on")
            }
            let fields = form.submission(filling: script.formFields)
            let encoded = fields.map { FormCoding.escape($0.name) + "=" + FormCoding.escape($0.value) }
                .joined(separator: "&")
            // No action (or an empty one) submits to the page's own URL, query included.
            let actionText = form.action.flatMap { $0.isEmpty ? nil : $0 }
            guard let action = actionText.map({ URL(string: $0, relativeTo: url)?.absoluteURL }) ?? url else {
                throw PluginError("presentationFailed", "headless agent: a form's action on \(Self.describe(url)) is not a URL")
            }
            PluginHost.log(.debug, "headless agent submits a form (\(form.method), \(fields.count) fields) on \(Self.describe(url))")
            if form.method == "POST" {
                method = "POST"
                body = Array(encoded.utf8)
                url = action
            } else {
                var components = URLComponents(url: action, resolvingAgainstBaseURL: false)
                components?.percentEncodedQuery = encoded
                guard let target = components?.url else {
                    throw PluginError("presentationFailed", "headless agent: could not build the form's URL")
                }
                method = "GET"
                body = nil
                url = target
            }
        }
        throw PluginError("presentationFailed",
            "headless agent: the redirect URI was not reached within \(script.maximumSteps) requests; last at \(Self.describe(url))")
    }

    /// The form to submit: the one with the most of the given field names, else the first.
    private func choose(_ forms: [HTMLForm]) -> HTMLForm? {
        let names = script.formFields.map(\.name)
        return forms.enumerated().max { lhs, rhs in
            let (left, right) = (lhs.element.matchCount(names), rhs.element.matchCount(names))
            return left != right ? left < right : lhs.offset > rhs.offset
        }?.element
    }

    private func fetch(_ url: URL, method: String, body: [UInt8]?) throws -> HTTPResponse {
        guard url.scheme == "http", let host = url.host else {
            throw PluginError("presentationFailed",
                "headless agent: follow mode speaks plain http only (test providers on loopback), not \(Self.describe(url))")
        }
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        var target = components?.percentEncodedPath ?? "/"
        if target.isEmpty { target = "/" }
        if let query = components?.percentEncodedQuery { target += "?" + query }
        var headers: [(String, String)] = [("Accept", "text/html,application/xhtml+xml")]
        if let cookie = cookies.header(for: url) { headers.append(("Cookie", cookie)) }
        if body != nil { headers.append(("Content-Type", "application/x-www-form-urlencoded")) }
        do {
            return try MiniHTTPClient.send(method: method, host: host, port: url.port ?? 80, target: target,
                                           headers: headers, body: body, stop: stop)
        } catch let error as NetworkError where error.kind == .stopped {
            throw error
        } catch {
            throw PluginError("presentationFailed", "headless agent: \(method) \(Self.describe(url)) failed: \(error)")
        }
    }

    /// A URL without its query, which may carry codes.
    static func describe(_ url: URL) -> String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.query = nil
        components?.fragment = nil
        return components?.string ?? "(a URL)"
    }
}
