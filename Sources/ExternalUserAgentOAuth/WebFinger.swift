// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore
import ExternalUserAgentRules
import Logging

/// Finds the issuer of an account with WebFinger (RFC 7033; OpenID Connect Discovery §2).
///
/// The account is normalized as Discovery §2.1 says: `alice@example.com` becomes `acct:alice@example.com`
/// on host `example.com`; a URL (`https://example.com/alice`) is its own resource on its host. The host
/// is asked over https, `GET /.well-known/webfinger?resource=…&rel=http://openid.net/specs/connect/1.0/issuer`,
/// and the issuer is the `href` of the link with that `rel`. Plain http is used only for a loopback host
/// (`127.0.0.1`, `[::1]`, `localhost`), which never leaves the machine — for local test servers; an issuer
/// found over https must be https too (`rp-discovery-webfinger-http-href`).
public struct WebFinger: Sendable {
    /// The link relation of an OpenID Connect issuer.
    public static let issuerRelation = "http://openid.net/specs/connect/1.0/issuer"

    private let http: OAuthHTTP
    private let logger: Logger

    /// A WebFinger client that asks with `http` and logs to `logger`.
    public init(http: OAuthHTTP = OAuthHTTP(), logger: Logger = Logger(label: "eua.oauth")) {
        self.http = http
        self.logger = logger
    }

    /// The resource and host `account` stands for (Discovery §2.1); throws `invalidOptions` for input that
    /// is neither an account nor a URL.
    public static func normalize(_ account: String) throws -> (resource: String, host: String) {
        func refuse(_ problem: String) -> ExternalUserAgentError {
            ExternalUserAgentError(
                .invalidOptions,
                "account '\(UntrustedText.printable(account))' \(problem); give it as "
                    + "user@host (alice@example.com) or as a URL (https://example.com/alice)")
        }
        var text = account
        if text.hasPrefix("acct:") { text.removeFirst(5) }
        if text.contains("://") {
            guard let url = URLComponents(string: text), let host = url.host, !host.isEmpty else {
                throw refuse("is not a URL with a host")
            }
            return (
                text.split(separator: "#", maxSplits: 1).first.map(String.init) ?? text,
                url.port.map { "\(host):\($0)" } ?? host
            )
        }
        guard let at = text.lastIndex(of: "@"), at != text.startIndex else { throw refuse("has no user@ part") }
        let host = String(text[text.index(after: at)...])
        guard !host.isEmpty, host.allSatisfy({ $0.isLetter || $0.isNumber || ".-:[]".contains($0) }) else {
            throw refuse("has no valid host after '@'")
        }
        return ("acct:" + text, host)
    }

    /// Asks `account`'s host for its issuer. Throws `invalidOptions` for an account that cannot be read,
    /// `discoveryFailed` when the host cannot be reached or names no issuer.
    public func issuer(for account: String) async throws -> String {
        let (resource, host) = try Self.normalize(account)
        let name =
            host.hasPrefix("[")
            ? String(host.prefix { $0 != "]" }) + "]" : String(host.split(separator: ":").first ?? "")
        let loopback = ["127.0.0.1", "localhost", "[::1]"].contains(name.lowercased())
        let scheme = loopback ? "http" : "https"
        let query = "resource=" + FormCoding.escape(resource) + "&rel=" + FormCoding.escape(Self.issuerRelation)
        guard let url = URL(string: "\(scheme)://\(host)/.well-known/webfinger?\(query)") else {
            throw ExternalUserAgentError(
                .invalidOptions,
                "account '\(UntrustedText.printable(account))' has a host that "
                    + "cannot be put in a URL")
        }
        let place = "\(scheme)://\(host)/.well-known/webfinger"
        logger.debug("WebFinger issuer discovery", metadata: ["url": "\(place)"])
        let response: OAuthHTTP.Response
        do {
            response = try await http.get(url)
        } catch {
            throw ExternalUserAgentError(
                .discoveryFailed,
                "WebFinger at \(place) could not be reached: \(error); "
                    + "give the issuer instead", underlying: error, remedies: [.giveIssuer])
        }
        guard response.status == 200 else {
            throw ExternalUserAgentError(
                .discoveryFailed,
                "WebFinger at \(place) answered HTTP \(response.status) for "
                    + "this account; give the issuer instead", remedies: [.giveIssuer])
        }
        guard case .object(let document)? = JSONValue.read(response.body) else {
            throw ExternalUserAgentError(
                .discoveryFailed,
                "WebFinger at \(place) answered with something that is not a "
                    + "JSON Resource Descriptor (RFC 7033 §4.4)")
        }
        let links: [JSONValue] = if case .array(let list)? = document["links"] { list } else { [] }
        for link in links {
            guard case .object(let fields) = link, fields["rel"]?.stringValue == Self.issuerRelation,
                let href = fields["href"]?.stringValue
            else { continue }
            guard let target = URLComponents(string: href),
                target.scheme == "https" || (target.scheme == "http" && scheme == "http"),
                target.host?.isEmpty == false
            else {
                throw ExternalUserAgentError(
                    .discoveryFailed,
                    "WebFinger at \(place) names issuer "
                        + "'\(UntrustedText.printable(href))', which is not an https URL; it was not used")
            }
            logger.debug("WebFinger found the issuer", metadata: ["issuer": "\(href)"])
            return href
        }
        throw ExternalUserAgentError(
            .discoveryFailed,
            "WebFinger at \(place) names no OpenID Connect issuer for this "
                + "account (no link with rel \(Self.issuerRelation)); give the issuer instead", remedies: [.giveIssuer])
    }
}
