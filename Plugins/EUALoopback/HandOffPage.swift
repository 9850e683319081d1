// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentPluginKit
import ExternalUserAgentRules
import FoundationEssentials
import ExternalUserAgentNet

/// The one-time page of a hand-off form (`hand_off` in the receiver request): a form with the host's fields, which
/// a script submits at once (its button does it by hand). Every value is escaped; the script runs only by its
/// nonce; the form may go only to the action's origin and to this listener.
enum HandOffPage {
    /// Why `handOff` cannot be served, or `nil`: a path under `/eua-hand-off/` of URL-safe characters, an absolute
    /// http(s) action, `post` or `get`.
    static func problem(with handOff: PluginABI.HandOff) -> String? {
        let safe = handOff.path.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || [UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "/")].contains(byte)
        }
        guard handOff.path.hasPrefix("/eua-hand-off/"), handOff.path.count > 30, safe else {
            return "the hand-off path '\(handOff.path)' is not /eua-hand-off/ and a random token"
        }
        guard origin(of: handOff.action) != nil, !handOff.action.contains("\"") else {
            return "the hand-off action is not an absolute http(s) URL"
        }
        guard ["post", "get"].contains(handOff.method) else {
            return "the hand-off method '\(handOff.method)' is neither post nor get"
        }
        return nil
    }

    /// `scheme://host[:port]` of an http(s) URL; `nil` for anything else.
    static func origin(of text: String) -> String? {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.percentEncodedHost, !host.isEmpty
        else { return nil }
        return scheme + "://" + host + (components.port.map { ":\($0)" } ?? "")
    }

    /// The whole response: the page, with headers that let only its own script run and its form go only where it must.
    static func reply(_ handOff: PluginABI.HandOff, redirectURI: String) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        let nonce = String((0..<4).map { _ in String(generator.next(), radix: 36) }.joined().prefix(32))
        var fields = handOff.fields
        if let name = handOff.redirectURIField { fields.append(.init(name: name, value: redirectURI)) }
        let inputs = fields.map {
            "<input type=\"hidden\" name=\"\(HTMLText.escaped($0.name))\" value=\"\(HTMLText.escaped($0.value))\">"
        }.joined()
        let html = """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">\
            <title>Continuing to the provider</title></head><body>\
            <form method="\(handOff.method)" action="\(HTMLText.escaped(handOff.action))">\(inputs)\
            <p>Continuing to the provider&hellip;</p><button type="submit">Continue</button></form>\
            <script nonce="\(nonce)">document.forms[0].submit();</script></body></html>
            """
        let own = origin(of: redirectURI) ?? "'self'"
        let policy =
            "default-src 'none'; script-src 'nonce-\(nonce)'; form-action \(origin(of: handOff.action) ?? "'none'") "
            + "\(own); frame-ancestors 'none'"
        var headers = Pages.headers(length: html.utf8.count)
        headers = headers.map { $0.0 == "Content-Security-Policy" ? ($0.0, policy) : $0 }
        return Pages.response(.ok, headers: headers, body: html)
    }
}
