// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentRules
import FoundationEssentials
import ExternalUserAgentPluginKit
import ExternalUserAgentNet

/// `mode=follow`: acts like a browser with no person at it, against the real authorization server (`http` over
/// plain sockets, `https` through libcurl, one cookie jar for the flow: ``FollowTransport``). GETs the authorization
/// URL, follows redirects itself (never from `https` to `http`), submits HTML forms filled with the `form.NAME`
/// options and pressed by ``SubmitButtonRule``, and stops when the next URL is the redirect URI, which it
/// returns for delivery to the receiver.
///
/// Safe on a real provider: each credential (a password field, or a typed field a `form.` option fills) is
/// submitted at most once per flow, a login form shown again ends the flow with the page's own error text, a
/// form already submitted is never submitted again, and an error page (`4xx`/`5xx`, or a page with no form and
/// no redirect) ends the flow with the page's text.
struct BrowserFollow {
    let script: HeadlessScript
    let redirectURI: URL
    private let stop: StopSignal
    private(set) var transport: FollowTransport
    /// The names of the credential fields submitted so far.
    private var submittedCredentials: Set<String> = []
    /// Page URL + form shape of every form submitted so far.
    private var submittedForms: Set<String> = []

    /// How long one request (connecting included) may take.
    static let requestTimeout = Duration.seconds(30)
    /// The largest page read.
    static let maximumBodyBytes = 2 << 20

    init(script: HeadlessScript, redirectURI: URL, stop: StopSignal) throws(PluginError) {
        self.script = script
        self.redirectURI = redirectURI
        self.stop = stop
        transport = FollowTransport(caFile: script.caFile, stop: stop)
    }

    /// Walks from `authorizationURL` to the callback URL (the redirect URI with the server's answer);
    /// throws ``NetworkError/stopped`` when stopped.
    mutating func callbackURL(from authorizationURL: URL) throws -> URL {
        var request = Step(url: authorizationURL, method: "GET", body: nil, referrer: nil)
        var previous: URL?
        for step in 0...script.maximumSteps {
            let url = request.url
            if RedirectURIMatch.mismatch(callback: url, redirectURI: redirectURI) == nil { return url }
            guard step < script.maximumSteps else { break }
            if stop.isRaised { throw NetworkError.stopped }
            try Self.checkScheme(url, after: previous)
            let response = try fetch(request)
            previous = url
            if (300..<400).contains(response.status), let location = response.header("Location") {
                guard let next = URL(string: location, relativeTo: url)?.absoluteURL else {
                    throw Self.failure("\(Self.describe(url)) redirected to a Location that is not a URL")
                }
                // 307 and 308 repeat the request as it was; the others become a GET.
                if response.status == 307 || response.status == 308 {
                    if request.carriesCredentials, next.scheme != "https", !Self.isLoopback(next) {
                        throw Self.failure(
                            "\(Self.describe(url)) answered the login form with \(response.status), which "
                                + "would send the credentials again over plain http to \(Self.describe(next)); they are sent "
                                + "only over https (or to a loopback host)")
                    }
                    request.url = next
                } else {
                    request = Step(url: next, method: "GET", body: nil, referrer: nil)
                }
                continue
            }
            request = try submit(page: response, at: url)
        }
        throw Self.failure(
            "the redirect URI was not reached within \(script.maximumSteps) requests (max-steps); last at \(Self.describe(request.url))"
        )
    }

    /// The request a page leads to: its chosen form, filled and submitted, under the rules of the type.
    private mutating func submit(page response: HTTPResponse, at url: URL) throws -> Step {
        let page = String(decoding: response.body, as: UTF8.self)
        let isHTML = response.header("Content-Type")?.lowercased().contains("html") ?? true
        guard response.status < 400 else {
            let text = isHTML ? PageText.visibleText(in: page) : PageText.shown(page)
            let hint =
                response.status < 500
                ? "check the client id and the registered redirect URI"
                : "the provider failed; try again later or ask its administrators"
            throw Self.failure(
                "the provider answered HTTP \(response.status) at \(Self.describe(url)): \"\(text)\"; "
                    + "the sign-in cannot go on (\(hint))")
        }
        let forms = isHTML ? HTMLForm.forms(in: page) : []
        guard let form = choose(forms) else {
            let text = isHTML ? PageText.visibleText(in: page) : PageText.shown(page)
            throw Self.failure(
                "the provider's page at \(Self.describe(url)) (HTTP \(response.status)) has no form to "
                    + "submit and no redirect; it says: \"\(text)\"")
        }
        let credentials = form.credentialFields(given: script.formFields)
        let pageError = { PageText.errorText(in: page) ?? PageText.visibleText(in: page) }
        if let again = credentials.first(where: { submittedCredentials.contains($0.name) }) {
            throw Self.failure(
                "the provider refused the credentials: its login form came back at \(Self.describe(url)) asking "
                    + "for '\(PageText.shown(again.name))' again (credentials are never submitted twice); it says: \"\(pageError())\""
            )
        }
        let shape = Self.describe(url) + "\u{1E}" + (url.query ?? "") + "\u{1E}" + form.shape
        guard !submittedForms.contains(shape) else {
            throw Self.failure(
                "the provider showed the same form again at \(Self.describe(url)) after it was submitted; "
                    + "stopping, so nothing is submitted twice; it says: \"\(pageError())\"")
        }
        let given = Set(script.formFields.map(\.name))
        if let password = credentials.first(where: { $0.type == "password" && !given.contains($0.name) }) {
            throw Self.failure(
                "the provider asks for a password ('\(PageText.shown(password.name))') at \(Self.describe(url)) "
                    + "and no option gives it; give the agent option form.\(PageText.shown(password.name))=... (an empty password is "
                    + "never submitted)")
        }
        let button: HTMLForm.SubmitButton?
        do {
            button = try SubmitButtonRule.button(in: form, choice: script.submitChoice, given: script.formFields)
        } catch {
            let found = error.buttons.map { PageText.shown($0.description) }.joined(separator: ", ")
            throw Self.failure(
                "the form at \(Self.describe(url)) has "
                    + (error.onlyDenies
                        ? "only a button that refuses"
                        : "no button that grants by the rule (allow, authorize, accept, approve, consent, yes, continue, sign in...)")
                    + "; buttons found: \(found); choose one with the agent option submit=NAME or submit=NAME=VALUE")
        }
        let fields = form.submission(filling: script.formFields, pressing: button)
        let encoded = fields.map { FormCoding.escape($0.name) + "=" + FormCoding.escape($0.value) }.joined(
            separator: "&")
        // No action (or an empty one) submits to the page's own URL, query included.
        let actionText = form.action.flatMap { $0.isEmpty ? nil : $0 }
        guard let action = actionText.map({ URL(string: $0, relativeTo: url)?.absoluteURL }) ?? url else {
            throw Self.failure("a form's action on \(Self.describe(url)) is not a URL")
        }
        try Self.checkScheme(action, after: url)
        if !credentials.isEmpty, action.scheme != "https", !Self.isLoopback(action) {
            throw Self.failure(
                "the login form at \(Self.describe(url)) would send the credentials over plain http to "
                    + "\(Self.describe(action)); they are sent only over https (or to a loopback host)")
        }
        submittedForms.insert(shape)
        submittedCredentials.formUnion(credentials.map(\.name))
        PluginHost.log(
            .debug,
            "headless agent submits a form (\(form.method), \(fields.count) fields, "
                + "\(credentials.isEmpty ? "no credentials" : "credentials once"), button \(button.map { PageText.shown($0.description) } ?? "none")) on \(Self.describe(url))"
        )
        if form.method == "POST" {
            return Step(
                url: action, method: "POST", body: Array(encoded.utf8), referrer: url,
                carriesCredentials: !credentials.isEmpty)
        }
        var components = URLComponents(url: action, resolvingAgainstBaseURL: false)
        components?.percentEncodedQuery = encoded
        guard let target = components?.url else {
            throw Self.failure("could not build the form's URL on \(Self.describe(url))")
        }
        return Step(url: target, method: "GET", body: nil, referrer: url)
    }

    /// The form to submit: the one with the most of the given field names, else the first.
    private func choose(_ forms: [HTMLForm]) -> HTMLForm? {
        let names = script.formFields.map(\.name) + (script.submitChoice.map { [$0.name] } ?? [])
        return forms.enumerated().max { lhs, rhs in
            let (left, right) = (lhs.element.matchCount(names), rhs.element.matchCount(names))
            return left != right ? left < right : lhs.offset > rhs.offset
        }?.element
    }

    /// One request of the walk; a form submission carries the page it came from (for `Origin` and `Referer`).
    private struct Step {
        var url: URL
        var method: String
        var body: [UInt8]?
        var referrer: URL?
        /// Whether the body holds credentials (a login form's): a 307/308 may repeat it only where they may go.
        var carriesCredentials = false
    }

    private mutating func fetch(_ step: Step) throws -> HTTPResponse {
        var headers: [(String, String)] = [("Accept", "text/html,application/xhtml+xml")]
        if step.body != nil { headers.append(("Content-Type", "application/x-www-form-urlencoded")) }
        // What a browser sends with a form: the page's origin (Django checks it on https), and the page itself
        // when the form stays on the same origin.
        if let referrer = step.referrer, let origin = Self.origin(referrer) {
            if step.method == "POST" { headers.append(("Origin", origin)) }
            headers.append(("Referer", Self.origin(step.url) == origin ? referrer.absoluteString : origin + "/"))
        }
        do {
            return try transport.send(
                method: step.method, url: step.url, headers: headers, body: step.body,
                timeout: Self.requestTimeout, maximumBodyBytes: Self.maximumBodyBytes)
        } catch let error as FollowTransport.Failure where error.untrustedCertificate {
            throw Self.failure(
                "\(error); if the provider uses a test CA, give its certificate with the agent option ca-file=PATH")
        } catch let error as FollowTransport.Failure {
            throw Self.failure("\(error)")
        }
    }

    /// Refuses a URL follow mode does not fetch: not http(s), or http after https.
    private static func checkScheme(_ url: URL, after previous: URL?) throws {
        guard url.scheme == "http" || url.scheme == "https", url.host?.isEmpty == false else {
            throw failure("follow mode fetches only http and https URLs, not \(describe(url))")
        }
        if previous?.scheme == "https", url.scheme == "http" {
            throw failure(
                "the provider sent the flow from https to plain http (\(describe(url))); follow mode never "
                    + "leaves https for http")
        }
    }

    static func isLoopback(_ url: URL) -> Bool {
        let host = url.host?.lowercased() ?? ""
        return host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
    }

    private static func origin(_ url: URL) -> String? {
        guard let scheme = url.scheme, let host = url.host else { return nil }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(bracketed)" + (url.port.map { ":\($0)" } ?? "")
    }

    static func failure(_ message: String) -> PluginError {
        PluginError(.presentationFailed, "headless agent: " + message)
    }

    /// A URL without its query, which may carry codes.
    static func describe(_ url: URL) -> String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.query = nil
        components?.fragment = nil
        return TerminalText.escaped(components?.string ?? "(a URL)")
    }
}
