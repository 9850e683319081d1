// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// The device authorization grant (RFC 8628) of a ``LocalAuthorizationServer``: off until enabled.
///
/// When enabled, the metadata advertises `device_authorization_endpoint` (`/device_authorization`),
/// which hands out a device code and a user code, and the token endpoint answers the
/// `urn:ietf:params:oauth:grant-type:device_code` grant with a script of answers, one per poll
/// (`authorization_pending`, `slow_down`, `access_denied`, `expired_token`), then approves.
///
/// ```swift
/// server.deviceAuthorization.update { $0.enabled = true; $0.answers = [.pending, .slowDown] }
/// ```
public final class LocalDeviceAuthorization: Sendable {
    /// The grant type the token endpoint answers.
    public static let grantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// What the token endpoint answers to one poll.
    public enum Answer: String, Sendable, Hashable {
        /// `authorization_pending`: the person has not finished.
        case pending
        /// `slow_down`: poll 5 s more slowly.
        case slowDown
        /// `access_denied`: the person said no.
        case deny
        /// `expired_token`: the device code ran out.
        case expire
        /// Tokens.
        case approve
    }

    /// How the endpoint behaves.
    public struct Settings: Sendable {
        /// Advertise and serve the grant.
        public var enabled: Bool = false
        /// The `interval` sent (seconds); `nil` leaves it out (clients then wait 5 s).
        public var interval: Int? = 5
        /// The codes' lifetime, `expires_in` (seconds).
        public var expiresIn: Int = 600
        /// The answers to the polls, in order; once they are used up, every poll is approved.
        public var answers: [Answer] = []
        /// Send `verification_uri_complete` as well.
        public var sendsCompleteURI: Bool = true

        /// The defaults: off, `interval` 5 s, codes that live 600 s, every poll approved, and the complete URI sent.
        public init() {}
    }

    private struct Device {
        var scope: String
        var remaining: [Answer]
        var finished = false
    }

    private struct State {
        var settings = Settings()
        var devices: [String: Device] = [:]
        var answered: [Answer] = []
        var requests = 0
    }

    private let state = Mutex(State())

    /// A grant with the default ``Settings``, off; a ``LocalAuthorizationServer`` makes its own
    /// (``LocalAuthorizationServer/deviceAuthorization``).
    public init() {}

    /// The settings in force.
    public var settings: Settings { state.withLock { $0.settings } }

    /// Changes the settings (a new device authorization request uses them).
    public func update(_ change: (inout Settings) -> Void) {
        state.withLock { change(&$0.settings) }
    }

    /// What the token endpoint answered to each device-code poll so far.
    public var answered: [Answer] { state.withLock { $0.answered } }

    /// How many device authorization requests were made.
    public var requestCount: Int { state.withLock { $0.requests } }

    /// `/device_authorization`: checks the client and hands out the codes.
    func authorize(_ request: LocalHTTPServer.Request, clientID expected: String, issuer: String)
        -> LocalHTTPServer.Response
    {
        var clientID = request.form["client_id"]
        if let authorization = request.header("Authorization"), authorization.hasPrefix("Basic "),
            let decoded = Data(base64Encoded: String(authorization.dropFirst(6))).map({
                String(decoding: $0, as: UTF8.self)
            }),
            let colon = decoded.firstIndex(of: ":")
        {
            clientID = LocalHTTPServer.Request.decode(String(decoded[..<colon]))
        }
        let settings = self.settings
        guard settings.enabled else { return .text(404, "not found") }
        guard clientID == expected else {
            return .json(["error": "invalid_client", "error_description": "unknown client"], status: 401)
        }
        let deviceCode = "dc-" + LocalAuthorizationServer.randomString(32)
        let userCode =
            LocalAuthorizationServer.randomString(4).uppercased() + "-"
            + LocalAuthorizationServer.randomString(4).uppercased()
        state.withLock {
            $0.requests += 1
            $0.devices[deviceCode] = Device(scope: request.form["scope"] ?? "", remaining: settings.answers)
        }
        return .json(
            DeviceDocument(
                device_code: deviceCode, user_code: userCode, verification_uri: issuer + "/device",
                verification_uri_complete: settings.sendsCompleteURI ? issuer + "/device?user_code=" + userCode : nil,
                expires_in: settings.expiresIn, interval: settings.interval))
    }

    /// One poll of the token endpoint: the scope granted, or the error response to send.
    func poll(deviceCode: String) -> (scope: String?, error: LocalHTTPServer.Response?) {
        func error(_ code: String, _ description: String) -> (String?, LocalHTTPServer.Response?) {
            (nil, .json(["error": code, "error_description": description], status: 400))
        }
        let outcome = state.withLock { state -> (Answer, String)? in
            guard var device = state.devices[deviceCode], !device.finished else { return nil }
            let answer = device.remaining.isEmpty ? .approve : device.remaining.removeFirst()
            if answer != .pending && answer != .slowDown { device.finished = true }
            state.devices[deviceCode] = device
            state.answered.append(answer)
            return (answer, device.scope)
        }
        guard let outcome else { return error("invalid_grant", "unknown or used device code") }
        let (answer, scope) = outcome
        switch answer {
        case .pending: return error("authorization_pending", "the user has not finished yet")
        case .slowDown: return error("slow_down", "poll more slowly")
        case .deny: return error("access_denied", "The user said no")
        case .expire: return error("expired_token", "the device code expired")
        case .approve: return (scope, nil)
        }
    }
}

private struct DeviceDocument: Encodable {
    var device_code: String
    var user_code: String
    var verification_uri: String
    var verification_uri_complete: String?
    var expires_in: Int
    var interval: Int?
}
