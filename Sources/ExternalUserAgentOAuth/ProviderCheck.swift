// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore
import ExternalUserAgentRules
import Logging
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What `eua doctor --issuer` checks about a provider before anyone signs in: that its metadata can be read
/// and names it, that its key set can be fetched and holds a key for the ID tokens it signs, and that this
/// machine's clock is close enough to the provider's for ID tokens to be accepted.
public enum ProviderCheck {
    /// One check and its outcome.
    public struct Finding: Sendable, Encodable {
        /// `discovery`, `keys` or `clock`.
        public var check: String
        /// Whether the check passed.
        public var ok: Bool
        /// What was found, or what is wrong and what to check.
        public var detail: String

        /// A finding of `check`.
        public init(check: String, ok: Bool, detail: String) {
            self.check = check
            self.ok = ok
            self.detail = detail
        }
    }

    /// The most the clocks may differ: the ID token check's own allowance (``IDTokenValidator/clockSkew``).
    public static let allowedSkew: Int64 = 60

    /// Runs the checks against `issuer`; each finding says what it saw, and the metadata comes back when it
    /// could be read. Never throws: a failure is a finding.
    public static func run(
        issuer: String, http: OAuthHTTP = OAuthHTTP(), logger: Logger = Logger(label: "eua.oauth"),
        now: @Sendable () -> Date = { Date() }
    ) async -> (findings: [Finding], service: ServiceConfiguration?) {
        let service: ServiceConfiguration
        do {
            service = try await Discovery(http: http, logger: logger).configuration(issuer: issuer)
        } catch {
            return ([Finding(check: "discovery", ok: false, detail: "\(error)")], nil)
        }
        return (await checks(service, issuer: issuer, http: http, now: now()), service)
    }

    private static func checks(_ service: ServiceConfiguration, issuer: String, http: OAuthHTTP, now: Date) async
        -> [Finding]
    {
        var findings = [Finding(check: "discovery", ok: true, detail: discoverySummary(service))]
        guard let jwksURI = service.jwksURI else {
            findings.append(
                Finding(
                    check: "keys", ok: false,
                    detail:
                        "the metadata has no jwks_uri, so no ID token from \(issuer) can be verified; ask the provider's administrator"
                ))
            return findings
        }
        let response: OAuthHTTP.Response
        do {
            response = try await http.get(jwksURI)
        } catch {
            findings.append(
                Finding(
                    check: "keys", ok: false,
                    detail: "the key set \(jwksURI.absoluteString) could not be fetched: \(error)"))
            return findings
        }
        findings.append(
            keyFinding(
                response, source: jwksURI.absoluteString,
                algorithms: service.idTokenSigningAlgValuesSupported ?? ["RS256"]))
        findings.append(clockFinding(serverDate: response.date, now: now, server: jwksURI.host ?? issuer))
        return findings
    }

    static func discoverySummary(_ service: ServiceConfiguration) -> String {
        var parts = [
            "the metadata names the issuer \(service.issuer)",
            "authorization endpoint \(service.authorizationEndpoint.absoluteString)",
            "token endpoint \(service.tokenEndpoint.absoluteString)",
        ]
        if let methods = service.codeChallengeMethodsSupported, !methods.contains("S256") {
            parts.append(
                "PKCE S256 is not advertised (code_challenge_methods_supported: \(methods.joined(separator: ", "))); "
                    + "this client always sends it")
        }
        parts.append(
            service.deviceAuthorizationEndpoint == nil
                ? "no device endpoint (no sign-in without a browser)"
                : "a device endpoint (RFC 8628)")
        return parts.joined(separator: "; ")
    }

    static func keyFinding(_ response: OAuthHTTP.Response, source: String, algorithms: [String]) -> Finding {
        guard response.status == 200 else {
            return Finding(check: "keys", ok: false, detail: "the key set \(source) answered HTTP \(response.status)")
        }
        guard let set = try? JSONWebKeySet(data: response.body) else {
            return Finding(
                check: "keys", ok: false,
                detail:
                    "the key set \(source) is not a JWK Set (a JSON object with a \"keys\" array)")
        }
        let usable = algorithms.filter { alg in set.keys.contains { $0.refusal(for: alg) == nil } }
        guard !usable.isEmpty else {
            return Finding(
                check: "keys", ok: false,
                detail: "none of the \(set.keys.count) keys of \(source) can verify "
                    + "the algorithms the provider signs ID tokens with (\(algorithms.joined(separator: ", ")))")
        }
        return Finding(
            check: "keys", ok: true,
            detail:
                "\(set.keys.count) key(s) at \(source); ID tokens signed with \(usable.joined(separator: ", ")) can be verified"
        )
    }

    static func clockFinding(serverDate: String?, now: Date, server: String) -> Finding {
        guard let serverDate, let seconds = HTTPDate.secondsSince1970(serverDate) else {
            return Finding(
                check: "clock", ok: true,
                detail:
                    "\(server) sent no usable Date header, so the clocks could not be compared")
        }
        let skew = Int64(now.timeIntervalSince1970.rounded()) - seconds
        let direction = skew > 0 ? "ahead of" : "behind"
        guard abs(skew) <= allowedSkew else {
            return Finding(
                check: "clock", ok: false,
                detail: "this machine's clock is \(abs(skew)) s \(direction) \(server)'s; "
                    + "ID tokens are refused beyond \(allowedSkew) s. Set the clock right (timedatectl set-ntp true)")
        }
        return Finding(check: "clock", ok: true, detail: "this machine's clock is within \(abs(skew)) s of \(server)'s")
    }
}
