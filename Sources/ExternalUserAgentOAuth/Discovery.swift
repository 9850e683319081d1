// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore
import Logging

/// Finds an authorization server's ``ServiceConfiguration`` from its issuer identifier.
///
/// Tries OpenID Connect discovery (`<issuer>/.well-known/openid-configuration`) first, then RFC 8414
/// (`/.well-known/oauth-authorization-server` inserted before the issuer's path). The metadata's
/// `issuer` must equal the requested issuer exactly, or discovery fails with `issuerMismatch`.
public struct Discovery: Sendable {
    private let http: OAuthHTTP
    private let logger: Logger

    /// Uses `http` for requests.
    public init(http: OAuthHTTP = OAuthHTTP(), logger: Logger = Logger(label: "eua.oauth")) {
        self.http = http
        self.logger = logger
    }

    /// Fetches and checks the configuration of `issuer`. Throws `ExternalUserAgentError`
    /// (`discoveryFailed`, `issuerMismatch`).
    public func configuration(issuer: String) async throws -> ServiceConfiguration {
        guard let components = URLComponents(string: issuer), let scheme = components.scheme?.lowercased(),
            scheme == "https" || scheme == "http", components.host?.isEmpty == false,
            components.query == nil, components.fragment == nil
        else {
            throw ExternalUserAgentError(
                .discoveryFailed,
                "issuer '\(issuer)' is not a valid issuer identifier: use an https URL with no query or fragment")
        }
        var failures: [String] = []
        for url in Self.metadataURLs(issuer: issuer, components: components) {
            logger.debug("fetching authorization server metadata", metadata: ["url": "\(url.absoluteString)"])
            let response: OAuthHTTP.Response
            do {
                response = try await http.get(url)
            } catch {
                // Both metadata URLs are on the same host: one that cannot be reached will not be the second time.
                failures.append("\(url.absoluteString): \(error)")
                break
            }
            guard response.status == 200 else {
                failures.append("\(url.absoluteString): HTTP \(response.status)")
                continue
            }
            return try Self.decode(response.body, from: url.absoluteString, issuer: issuer)
        }
        throw ExternalUserAgentError(
            .discoveryFailed,
            "discovery failed: no authorization server metadata for issuer '\(issuer)': "
                + failures.joined(separator: "; "))
    }

    /// Reads the metadata fetched from `url` and checks that it names `issuer` exactly.
    static func decode(_ body: Data, from url: String, issuer: String) throws -> ServiceConfiguration {
        let configuration: ServiceConfiguration
        do {
            configuration = try ServiceConfiguration(fields: JSONFields(json: body))
        } catch {
            throw ExternalUserAgentError(
                .discoveryFailed,
                "the metadata at \(url) is not valid authorization server metadata: \(error)", underlying: error)
        }
        guard configuration.issuer == issuer else {
            throw ExternalUserAgentError(
                .issuerMismatch,
                "the metadata at \(url) names issuer '\(UntrustedText.printable(configuration.issuer))', not '\(issuer)'; "
                    + "use the issuer exactly as the server names it")
        }
        return configuration
    }

    /// The OpenID Connect URL, then the RFC 8414 one (the same when the issuer has no path).
    static func metadataURLs(issuer: String, components: URLComponents) -> [URL] {
        var trimmed = issuer
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        var urls: [URL] = []
        if let oidc = URL(string: trimmed + "/.well-known/openid-configuration") { urls.append(oidc) }
        var rfc8414 = components
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        rfc8414.percentEncodedPath = "/.well-known/oauth-authorization-server" + path
        if let url = rfc8414.url { urls.append(url) }
        return urls
    }
}
