// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentRules
import ExternalUserAgentNet

/// The pages the browser sees after the redirect: plain, self-contained, no scripts, nothing echoed unescaped.
enum Pages {
    /// Security headers on every response.
    static func headers(contentType: String = "text/html; charset=utf-8", length: Int) -> [(String, String)] {
        [
            ("Content-Type", contentType),
            ("Content-Length", String(length)),
            ("Cache-Control", "no-store"),
            ("Pragma", "no-cache"),
            ("Referrer-Policy", "no-referrer"),
            (
                "Content-Security-Policy",
                "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; form-action 'none'"
            ),
            ("X-Content-Type-Options", "nosniff"),
            ("X-Frame-Options", "DENY"),
            ("Connection", "close"),
        ]
    }

    /// A whole HTTP/1.1 response: `status`, the security headers (and `extraHeaders`), and `html`.
    static func reply(_ status: HTTPStatus, html: String, extraHeaders: [(String, String)] = []) -> [UInt8] {
        response(status, headers: headers(length: html.utf8.count) + extraHeaders, body: html)
    }

    /// A `302 Found` to `url` (an http(s) URL from the options, checked to hold no CR or LF).
    static func redirect(to url: String) -> [UInt8] {
        response(.found, headers: headers(length: 0) + [("Location", url)], body: "")
    }

    static func response(_ status: HTTPStatus, headers: [(String, String)], body: String) -> [UInt8] {
        var text = "HTTP/1.1 \(status.code) \(status.reason)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "\r\n" + body
        return Array(text.utf8)
    }

    static func success() -> String {
        page(
            title: "Signed in", heading: "You are signed in",
            body: "The app has received your sign-in. You may close this tab and return to it.")
    }

    static func signedOut() -> String {
        page(
            title: "Signed out", heading: "You are signed out",
            body: "The app has signed you out. You may close this tab.")
    }

    static func oauthError(_ error: String, description: String?) -> String {
        var text = "The sign-in was not completed: the server answered <code>\(HTMLText.escaped(error))</code>"
        if let description, !description.isEmpty { text += " — \(HTMLText.escaped(description))" }
        text += ". You may close this tab; the app will tell you what to do next."
        return page(title: "Sign-in not completed", heading: "Sign-in not completed", body: text)
    }

    static func refusal(_ reason: String) -> String {
        page(
            title: "Not accepted", heading: "This request was not accepted",
            body: HTMLText.escaped(reason) + " If you were signing in, return to the app and start again.")
    }

    private static func page(title: String, heading: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(HTMLText.escaped(title))</title>
        <style>body{font:16px/1.5 system-ui,sans-serif;max-width:36em;margin:4em auto;padding:0 1em;color:#222}
        h1{font-size:1.4em}code{background:#eee;padding:0 .2em}</style></head>
        <body><h1>\(HTMLText.escaped(heading))</h1><p>\(body)</p></body></html>

        """
    }
}
