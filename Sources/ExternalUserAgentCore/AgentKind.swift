// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// What sort of user agent an agent is; the selection policy decides by it.
public enum AgentKind: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// The user's own browser, a separate program (RFC 8252's recommendation).
    case externalBrowser
    /// A browser tab shown inside the app but run by the browser (like SFSafariViewController).
    case inAppBrowserTab
    /// A web view embedded in the app. Never selectable (RFC 8252 §8.12).
    case embeddedWebView
    /// A scripted fake for tests. Only selectable when test agents are allowed.
    case testDouble
    /// Shows the URL to the person, who opens it themselves.
    case manual

    public var description: String { rawValue }
}
