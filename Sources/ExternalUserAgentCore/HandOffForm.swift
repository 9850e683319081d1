// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentABI

/// A form a loopback receiver serves once, at a one-time path, and the browser submits at once: how a request that
/// must not be in a launched URL reaches the provider (an end-session request with `id_token_hint`; GIO broadcasts
/// what it launches and a browser's argv is readable in `/proc`). The agent is given only ``url(on:)``.
public struct HandOffForm: Sendable, Hashable {
    /// How the browser sends the form.
    public enum Method: String, Sendable, Hashable {
        /// In the request body: the values stay out of the browser's history and the provider's access log.
        case post
        /// In the query, for a provider that takes the request only by GET (the values are then in the browser's
        /// history, but still never in a launched URL).
        case get
    }

    /// One form field: the plugin ABI's own, which the hand-off carries to the receiver as it is.
    public typealias Field = PluginABI.HandOff.Field

    /// The one-time path: `/eua-hand-off/` and 43 random URL-safe characters (256 bits).
    public var path: String
    /// Where the form goes.
    public var action: URL
    /// How.
    public var method: Method
    /// The fields, in order.
    public var fields: [Field]
    /// The field the receiver adds with its own redirect URI (`post_logout_redirect_uri`), if any.
    public var redirectURIField: String?

    /// A form to `action` with `fields`, served at a new random one-time path.
    public init(action: URL, method: Method, fields: [Field], redirectURIField: String? = nil) {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        path = "/eua-hand-off/" + String((0..<43).map { _ in alphabet[Int(generator.next() % 64)] })
        self.action = action
        self.method = method
        self.fields = fields
        self.redirectURIField = redirectURIField
    }

    /// The receiver's one-time URL for this form: its redirect URI's origin with ``path``.
    public func url(on redirectURI: URL) -> URL? {
        guard var components = URLComponents(url: redirectURI, resolvingAgainstBaseURL: false) else { return nil }
        components.percentEncodedPath = path
        components.percentEncodedQuery = nil
        components.fragment = nil
        return components.url
    }

    /// The form as it crosses the plugin ABI.
    var wire: PluginABI.HandOff {
        PluginABI.HandOff(
            path: path, action: action.absoluteString, method: method.rawValue,
            fields: fields,
            redirectURIField: redirectURIField)
    }
}
