// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// django-oauth-toolkit (PyPI, pinned in scripts/bootstrap): a real OAuth 2.0 / OpenID Connect provider that
/// nobody here wrote, run on 127.0.0.1 with a throwaway SQLite database and an RSA key made at start
/// (`Tests/Fixtures/django-provider/provider.py` holds its settings, login page and request log).
///
/// Users and applications are added through the provider's own models; what it recorded (grants, tokens,
/// revocations, device grants, every request) is read back with ``records()`` and ``requestLog()``, so a test
/// asserts on the provider's side of a sign-in, not only on what `eua` printed. Stopped when released.
public final class DjangoProvider: @unchecked Sendable {
    /// `http://127.0.0.1:PORT`.
    public let baseURL: String
    /// The issuer (discovery at `issuer + "/.well-known/openid-configuration"`).
    public var issuer: String { baseURL + "/o" }
    /// The folder holding the database, the key and the request log.
    public var folder: URL { process.folder }
    private let process: ProviderFixtureProcess

    /// The grant an application is registered for (django-oauth-toolkit allows one per application).
    public enum Grant: String, Sendable { case code, device }

    /// Starts the provider and waits (up to `timeout` seconds) until it answers, off the cooperative pool.
    /// `device` advertises its device endpoint in discovery; `localhostLoopback` lets `http://localhost/...`
    /// redirect URIs vary their port as `127.0.0.1` ones do (django-oauth-toolkit's `ALLOW_LOCALHOST_LOOPBACK`).
    /// `registration` opens its dynamic client registration endpoint to anyone and advertises it in discovery.
    /// `endSession` (on by default) serves and advertises RP-Initiated Logout's end-session endpoint.
    public static func start(
        device: Bool = false, localhostLoopback: Bool = true, registration: Bool = false,
        endSession: Bool = true, timeout: TimeInterval = 60
    ) async throws -> DjangoProvider {
        try await offThePool {
            try DjangoProvider(
                device: device, localhostLoopback: localhostLoopback, registration: registration,
                endSession: endSession, timeout: timeout)
        }
    }

    private init(device: Bool, localhostLoopback: Bool, registration: Bool, endSession: Bool, timeout: TimeInterval)
        throws
    {
        var arguments: [String] = []
        if device { arguments.append("--device") }
        if localhostLoopback { arguments.append("--localhost-loopback") }
        if registration { arguments.append("--registration") }
        if !endSession { arguments.append("--no-end-session") }
        // Migrate before serving ("records"), so the server's first request does not race a migration.
        process = try ProviderFixtureProcess(
            name: "django-provider", script: Self.script, serveArguments: arguments, prepare: ["records"],
            pythonArguments: ["-W", "ignore"], timeout: timeout,
            startHint: "is django-oauth-toolkit installed? run scripts/bootstrap",
            failureHint: "is django-oauth-toolkit installed? run scripts/bootstrap")
        baseURL = process.baseURL
    }

    /// Adds a user who can sign in on the provider's login page, a member of `groups` (the ID token's `groups` claim).
    public func addUser(
        _ username: String, password: String, name: String? = nil, email: String? = nil,
        groups: [String] = []
    ) throws {
        var arguments = ["user", "--username", username, "--password", password]
        for group in groups { arguments += ["--group", group] }
        if let name { arguments += ["--name", name] }
        if let email { arguments += ["--email", email] }
        _ = try process.run(arguments)
    }

    /// Registers an application: public without `secret`, confidential with it.
    public func addApplication(
        clientID: String, secret: String? = nil, grant: Grant = .code,
        redirectURIs: [String] = [], postLogoutRedirectURIs: [String] = [],
        skipAuthorization: Bool = false, algorithm: String = "RS256"
    ) throws {
        var arguments = ["app", "--client-id", clientID, "--grant", grant.rawValue, "--algorithm", algorithm]
        if let secret { arguments += ["--secret", secret] }
        if skipAuthorization { arguments.append("--skip-authorization") }
        for uri in redirectURIs { arguments += ["--redirect-uri", uri] }
        for uri in postLogoutRedirectURIs { arguments += ["--post-logout-redirect-uri", uri] }
        _ = try process.run(arguments)
    }

    /// Approves (or denies) a device grant's user code for `username`, as the user would on the provider's
    /// device pages.
    public func approveDevice(userCode: String, username: String, deny: Bool = false) throws {
        var arguments = ["approve-device", "--user-code", userCode, "--username", username]
        if deny { arguments.append("--deny") }
        _ = try process.run(arguments)
    }

    /// What the provider's database holds now.
    public func records() throws -> Records {
        let output = try process.run(["records"])
        do {
            return try JSONDecoder().decode(Records.self, from: Data(output.utf8))
        } catch {
            throw TestSupportError("provider.py records printed what the harness cannot read (\(error)):\n\(output)")
        }
    }

    /// Every request the provider answered so far, in order.
    public func requestLog() throws -> [LoggedRequest] {
        let url = folder.appendingPathComponent("requests.jsonl")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        return try text.split(separator: "\n").map { line in
            try JSONDecoder().decode(LoggedRequest.self, from: Data(line.utf8))
        }
    }

    /// Ends the provider and removes its folder.
    public func stop() {
        process.stop()
    }

    deinit { stop() }

    /// The provider script.
    public static var script: URL { TestPaths.fixture("django-provider/provider.py") }
}

extension DjangoProvider {
    /// One request as the provider's log recorded it: names of fields, never their values (except the posted
    /// `username`).
    public struct LoggedRequest: Decodable, Sendable {
        public var method: String
        public var path: String
        public var query: [String]
        public var form: [String]
        public var username: String?
        public var status: Int
        /// The scheme of the `Authorization` header (`Basic`, `Bearer`), or empty.
        public var authorization: String
        /// For a redirect, where it pointed (without the query).
        public var location_path: String?
        /// The `redirect_uri` parameter sent (query or form), if any.
        public var redirect_uri: String?
    }

    /// The provider's database rows that a sign-in leaves behind.
    public struct Records: Decodable, Sendable {
        public struct Application: Decodable, Sendable {
            public var client_id: String
            public var client_type: String
            public var redirect_uris: [String]
        }
        public struct Grant: Decodable, Sendable {
            public var client_id: String
            public var user: String
            public var redirect_uri: String
            public var code_challenge_method: String
            public var nonce: String
            public var scope: String
            /// The RFC 8707 resources the grant was given.
            public var resource: [String]
        }
        public struct AccessToken: Decodable, Sendable {
            public var client_id: String?
            public var user: String?
            public var token: String
            public var scope: String
            public var has_id_token: Bool
            /// The RFC 8707 resources the token is for (its audience).
            public var resource: [String]
        }
        public struct RefreshToken: Decodable, Sendable {
            public var client_id: String
            public var user: String
            public var token: String
            /// When it was revoked (ISO 8601), or nil while it is live.
            public var revoked: String?
        }
        public struct IDToken: Decodable, Sendable {
            public var client_id: String?
            public var user: String?
            public var jti: String
        }
        public struct DeviceGrant: Decodable, Sendable {
            public var client_id: String
            public var user_code: String
            public var status: String
        }
        public var applications: [Application]
        public var grants: [Grant]
        public var access_tokens: [AccessToken]
        public var refresh_tokens: [RefreshToken]
        public var id_tokens: [IDToken]
        public var device_grants: [DeviceGrant]
    }
}
