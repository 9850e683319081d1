// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore
import Logging

/// A device authorization endpoint's answer (RFC 8628 §3.2): the codes and where the person enters them.
public struct DeviceAuthorizationResponse: Sendable, Hashable, Codable {
    /// The code this client polls with; never shown to the person.
    public var deviceCode: String
    /// The short code the person types at ``verificationURI``.
    public var userCode: String
    /// Where the person goes, on any device with a browser.
    public var verificationURI: String
    /// The same page with the user code already in it, when the server offers one.
    public var verificationURIComplete: String?
    /// Seconds until both codes expire.
    public var expiresIn: Int
    /// Seconds to wait between polls; RFC 8628 says 5 when absent.
    public var interval: Int?

    /// The longest `expires_in` accepted: a day, in seconds.
    public static let maximumLifetime = 86_400
    /// The longest `interval` accepted: an hour, in seconds.
    public static let maximumInterval = 3_600

    /// A response from values at hand (tests); unlike decoding, nothing is range-checked.
    public init(
        deviceCode: String, userCode: String, verificationURI: String, verificationURIComplete: String? = nil,
        expiresIn: Int, interval: Int? = nil
    ) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresIn = expiresIn
        self.interval = interval
    }

    enum CodingKeys: String, CodingKey {
        case deviceCode = "device_code"
        case userCode = "user_code"
        case verificationURI = "verification_uri"
        case verificationURIComplete = "verification_uri_complete"
        case expiresIn = "expires_in"
        case interval
        // Some servers (Google) spell it verification_url.
        case verificationURL = "verification_url"
    }

    /// Reads the server's answer; throws ``InvalidFieldError`` for a field of the wrong type, an
    /// `expires_in` outside 1…``maximumLifetime`` or an `interval` outside 0…``maximumInterval``.
    public init(from decoder: any Decoder) throws {
        let fields = try JSONFields<CodingKeys>(decoder)
        deviceCode = try fields.string(.deviceCode)
        userCode = try fields.string(.userCode)
        verificationURI = try fields.optionalString(.verificationURI) ?? fields.string(.verificationURL)
        verificationURIComplete = try fields.optionalString(.verificationURIComplete)
        guard let lifetime = try fields.seconds(.expiresIn, in: 1...Self.maximumLifetime) else {
            throw InvalidFieldError(field: CodingKeys.expiresIn.stringValue, problem: "is missing")
        }
        expiresIn = lifetime
        interval = try fields.seconds(.interval, in: 0...Self.maximumInterval)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(deviceCode, forKey: .deviceCode)
        try container.encode(userCode, forKey: .userCode)
        try container.encode(verificationURI, forKey: .verificationURI)
        try container.encodeIfPresent(verificationURIComplete, forKey: .verificationURIComplete)
        try container.encode(expiresIn, forKey: .expiresIn)
        try container.encodeIfPresent(interval, forKey: .interval)
    }

    /// What to tell the person, in plain lines: where to go and which code to enter.
    public var instructions: String {
        var lines = [
            "", "To sign in, open this page on any device with a browser:", "", "    \(verificationURI)", "",
            "and enter the code:", "", "    \(userCode)", "",
        ]
        if let verificationURIComplete {
            lines += ["Or open this address, which already holds the code:", "", "    \(verificationURIComplete)", ""]
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// The device authorization grant (RFC 8628): for machines where no browser can run (SSH, containers,
/// CI). Asks the server for a user code, lets the caller show it, then polls the token endpoint.
///
/// Polling honours the server's `interval` (5 s when absent), adds 5 s on every `slow_down`, goes on
/// while `authorization_pending`, and ends with `userCanceled` on `access_denied`, `timedOut` on
/// `expired_token` or when the codes' lifetime (or `timeout`) runs out, and `programCanceled` when the
/// task is cancelled. The clock is a parameter so tests can check the pauses without waiting.
///
/// ```swift
/// let device = DeviceAuthorization(configuration: configuration, client: client, scopes: ["openid"])
/// let codes = try await device.request()
/// print(codes.instructions)
/// let tokens = try await device.poll(codes)
/// ```
public struct DeviceAuthorization: Sendable {
    /// The grant type of the token requests (RFC 8628 §3.4).
    public static let grantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// What happened during polling, for progress displays.
    public enum PollEvent: Sendable, Equatable {
        /// The person has not finished yet; the next poll comes after `interval`.
        case pending(interval: Duration)
        /// The server asked to poll more slowly; the interval is now `interval`.
        case slowDown(interval: Duration)
    }

    /// The provider: its `device_authorization_endpoint` and `token_endpoint`.
    public var configuration: ServiceConfiguration
    /// The client that asks for the codes and polls, authenticated with its method as it is (as at the token endpoint).
    public var client: ClientCredentials
    /// The scopes to ask for, sent space-separated as `scope` (left out when empty).
    public var scopes: [String]
    /// The longest the whole wait may take, even when the codes live longer.
    public var timeout: Duration?
    private let http: OAuthHTTP
    private let logger: Logger
    private let sleep: @Sendable (Duration) async throws -> Void
    private let stopwatch: @Sendable () -> @Sendable () -> Duration

    /// A grant for `client` at `configuration`: scope `openid` and no ``timeout`` (the codes' lifetime) unless given.
    /// `clock` times the pauses between polls; tests pass one that does not really wait.
    public init<C: Clock>(
        configuration: ServiceConfiguration, client: ClientCredentials, scopes: [String] = ["openid"],
        timeout: Duration? = nil, http: OAuthHTTP = OAuthHTTP(),
        logger: Logger = Logger(label: "eua.oauth"),
        clock: C = ContinuousClock()
    ) where C.Duration == Duration {
        self.configuration = configuration
        self.client = client
        self.scopes = scopes
        self.timeout = timeout
        self.http = http
        self.logger = logger
        sleep = { try await clock.sleep(for: $0) }
        stopwatch = {
            let start = clock.now
            return { start.duration(to: clock.now) }
        }
    }

    /// Asks the device authorization endpoint for codes (RFC 8628 §3.1).
    ///
    /// Throws `invalidOptions` when the server advertises no `device_authorization_endpoint`,
    /// `oauthError` when it refuses, `tokenRequestFailed` when it cannot be reached or answers nonsense.
    public func request() async throws -> DeviceAuthorizationResponse {
        guard let endpoint = configuration.deviceAuthorizationEndpoint else {
            throw ExternalUserAgentError(
                .invalidOptions,
                "the server \(configuration.issuer) advertises no device_authorization_endpoint, so the device "
                    + "authorization grant (RFC 8628) cannot be used; sign in with a browser or the manual agent")
        }
        var fields: [(String, String)] = []
        if !scopes.isEmpty { fields.append(("scope", scopes.joined(separator: " "))) }
        let (body, authorization) = try TokenEndpoint.authenticate(
            client, fields, audience: configuration.tokenEndpoint)
        logger.debug("device authorization request", metadata: ["endpoint": "\(endpoint.absoluteString)"])
        let response: OAuthHTTP.Response
        do {
            response = try await http.postForm(endpoint, fields: body, authorization: authorization)
        } catch is CancellationError {
            throw ExternalUserAgentError(.programCanceled, "the device sign-in was cancelled")
        } catch {
            throw ExternalUserAgentError(
                .tokenRequestFailed,
                "the device authorization endpoint \(endpoint.absoluteString) could not be reached: \(error)",
                underlying: error)
        }
        if response.status != 200 {
            if let oauthError = try? JSONDecoder().decode(OAuthErrorResponse.self, from: response.body) {
                throw ExternalUserAgentError(
                    .oauthError,
                    "the device authorization endpoint refused the request with '\(oauthError.error)'"
                        + (oauthError.errorDescription.map { ": \($0)" } ?? "") + " (HTTP \(response.status))",
                    underlying: oauthError)
            }
            throw ExternalUserAgentError(
                .tokenRequestFailed,
                "the device authorization endpoint \(endpoint.absoluteString) answered with HTTP \(response.status)")
        }
        return try Self.decode(response.body, endpoint: endpoint.absoluteString)
    }

    /// Reads a device authorization response; `tokenRequestFailed` naming the field when it is not one.
    static func decode(_ body: Data, endpoint: String) throws -> DeviceAuthorizationResponse {
        do {
            return try JSONDecoder().decode(DeviceAuthorizationResponse.self, from: body)
        } catch let error as InvalidFieldError {
            throw ExternalUserAgentError(
                .tokenRequestFailed,
                "the device authorization endpoint \(endpoint) answered with a response whose \(error)",
                underlying: error)
        } catch {
            throw ExternalUserAgentError(
                .tokenRequestFailed,
                "the device authorization endpoint \(endpoint) answered with something that is not a "
                    + "device authorization response (it needs device_code, user_code, verification_uri, expires_in)")
        }
    }

    /// Polls the token endpoint until the person approves, denies, or the codes expire.
    public func poll(
        _ codes: DeviceAuthorizationResponse,
        onEvent: @Sendable (PollEvent) -> Void = { _ in }
    ) async throws -> TokenResponse {
        let elapsed = stopwatch()
        var interval = Duration.seconds(max(codes.interval ?? 5, 1))
        let lifetime = Duration.seconds(codes.expiresIn)
        let limit = timeout.map { min($0, lifetime) } ?? lifetime
        let endpoint = TokenEndpoint(configuration: configuration, client: client, http: http, logger: logger)
        while true {
            if elapsed() + interval > limit {
                throw limit < lifetime
                    ? ExternalUserAgentError(
                        .timedOut,
                        "the device sign-in was not approved within \(limit); finish it sooner or raise the timeout")
                    : ExternalUserAgentError(
                        .timedOut,
                        "the user code \(codes.userCode) expired before it was approved (it lived \(codes.expiresIn) s); "
                            + "sign in again for a new code")
            }
            do {
                try await sleep(interval)
            } catch {
                throw ExternalUserAgentError(.programCanceled, "the device sign-in was cancelled")
            }
            if Task.isCancelled { throw ExternalUserAgentError(.programCanceled, "the device sign-in was cancelled") }
            do {
                return try await endpoint.deviceToken(deviceCode: codes.deviceCode)
            } catch let error as ExternalUserAgentError {
                // A request stopped because the task was cancelled is the cancellation, not a failed request.
                if error.underlying is CancellationError {
                    throw ExternalUserAgentError(.programCanceled, "the device sign-in was cancelled")
                }
                guard let answer = error.underlying as? OAuthErrorResponse else { throw error }
                let detail = answer.errorDescription.map { ": \($0)" } ?? ""
                switch answer.error {
                case "authorization_pending":
                    logger.trace("device authorization pending")
                    onEvent(.pending(interval: interval))
                case "slow_down":
                    interval += .seconds(5)
                    logger.debug("device authorization: slow_down", metadata: ["interval": "\(interval)"])
                    onEvent(.slowDown(interval: interval))
                case "access_denied":
                    throw ExternalUserAgentError(
                        .userCanceled, "the sign-in was denied at \(codes.verificationURI)\(detail)",
                        underlying: answer)
                case "expired_token":
                    throw ExternalUserAgentError(
                        .timedOut,
                        "the user code \(codes.userCode) expired before it was approved\(detail); sign in again for a new code",
                        underlying: answer)
                default:
                    throw error
                }
            }
        }
    }
}
