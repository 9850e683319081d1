// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Glewlwyd 2.7 (Debian package `glewlwyd`, listed in scripts/bootstrap): a real OpenID Connect provider written
/// in C that nobody here wrote, with pushed authorization requests (RFC 9126), DPoP (RFC 9449, its draft 07),
/// revocation, introspection, the device grant and an end-session endpoint. Run on a free 127.0.0.1 port with a
/// throwaway SQLite database, configured through its config file and its own admin API
/// (`Tests/Fixtures/glewlwyd/provider.py`).
///
/// Its login page is a JavaScript app, so the browser is `Tests/Fixtures/glewlwyd/browser.py`, given to the
/// system-browser agent as `$BROWSER` (``browserEnvironment(username:password:)``): it makes the calls the page
/// makes. What the provider stored (pushed requests and their status, codes, tokens and the DPoP key thumbprints
/// bound to them) is read back with ``records()`` and ``introspect(token:clientID:secret:)``. Stopped when released.
public final class GlewlwydProvider: @unchecked Sendable {
    /// `http://127.0.0.1:PORT`.
    public let baseURL: String
    /// The issuer of its OpenID Connect plugin instance.
    public var issuer: String { baseURL + "/api/oidc" }
    /// The folder holding the config, database, keys, logs and the stand-in browser's record.
    public var folder: URL { process.folder }
    private let process: ProviderFixtureProcess

    /// Starts and configures the provider, waiting up to `timeout` seconds, off the cooperative pool.
    /// `parRequired` makes pushed authorization requests mandatory (`require_pushed_authorization_requests`).
    public static func start(parRequired: Bool = false, timeout: TimeInterval = 90) async throws -> GlewlwydProvider {
        try await offThePool { try GlewlwydProvider(parRequired: parRequired, timeout: timeout) }
    }

    private init(parRequired: Bool, timeout: TimeInterval) throws {
        var arguments = ["--timeout", String(Int(timeout))]
        if parRequired { arguments.append("--par-required") }
        process = try ProviderFixtureProcess(
            name: "glewlwyd", script: Self.script, serveArguments: arguments, timeout: timeout + 5,
            startHint: "is the Debian package installed? run scripts/bootstrap",
            failureHint: "see its log in the folder")
        baseURL = process.baseURL
    }

    /// Adds a user (through the admin API) who may be granted `openid profile email`.
    public func addUser(_ username: String, password: String, name: String? = nil, email: String? = nil) throws {
        var arguments = ["user", "--username", username, "--password", password]
        if let name { arguments += ["--name", name] }
        if let email { arguments += ["--email", email] }
        _ = try run(arguments)
    }

    /// Adds a client (through the admin API): public without `secret`, confidential with it. Glewlwyd compares
    /// redirect URIs exactly, so a loopback one carries its port.
    public func addClient(
        _ clientID: String, secret: String? = nil, redirectURIs: [String],
        postLogoutRedirectURI: String? = nil, dpopRequired: Bool = false
    ) throws {
        var arguments = ["client", "--client-id", clientID]
        if let secret { arguments += ["--secret", secret] }
        for uri in redirectURIs { arguments += ["--redirect-uri", uri] }
        if let postLogoutRedirectURI { arguments += ["--post-logout-redirect-uri", postLogoutRedirectURI] }
        if dpopRequired { arguments.append("--dpop-required") }
        _ = try run(arguments)
    }

    /// What the provider's database holds now.
    public func records() throws -> Records {
        let output = try run(["records"])
        do {
            return try JSONDecoder().decode(Records.self, from: Data(output.utf8))
        } catch {
            throw TestSupportError("provider.py records printed what the harness cannot read (\(error)):\n\(output)")
        }
    }

    /// The provider's introspection (RFC 7662) answer for `token`, asked as the confidential client that owns it.
    public func introspect(token: String, clientID: String, secret: String) throws -> [String: Any] {
        let output = try run(["introspect", "--client-id", clientID, "--secret", secret, "--token", token])
        guard let object = try? JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] else {
            throw TestSupportError("the introspection answer is not a JSON object: \(output)")
        }
        return object
    }

    /// The environment that makes the system-browser agent open `browser.py` as the person's browser, signing in
    /// as `username`; it records each request it makes in ``browserRecord``.
    public func browserEnvironment(username: String, password: String) -> [String: String] {
        [
            "BROWSER": Self.browser.path, "GLEWLWYD_BROWSER_USERNAME": username, "GLEWLWYD_BROWSER_PASSWORD": password,
            "GLEWLWYD_BROWSER_RECORD": browserRecord.path,
            "GLEWLWYD_BROWSER_COOKIES": folder.appendingPathComponent("browser-cookies.txt").path,
        ]
    }

    /// Where the stand-in browser appends one JSON line per request (method, path, status, query names).
    public var browserRecord: URL { folder.appendingPathComponent("browser.jsonl") }

    /// The stand-in browser's requests so far (none if it was never opened).
    public func browserRequests() throws -> [BrowserRequest] {
        guard let text = try? String(contentsOf: browserRecord, encoding: .utf8) else { return [] }
        return try text.split(separator: "\n").map {
            try JSONDecoder().decode(BrowserRequest.self, from: Data($0.utf8))
        }
    }

    /// Ends the provider and removes its folder.
    public func stop() {
        process.stop(grace: 5)
    }

    deinit { stop() }

    /// The provider script.
    public static var script: URL { TestPaths.fixture("glewlwyd/provider.py") }
    /// The stand-in browser for its JavaScript login page.
    public static var browser: URL { TestPaths.fixture("glewlwyd/browser.py") }

    private func run(_ arguments: [String]) throws -> String {
        try process.run(arguments)
    }
}

extension GlewlwydProvider {
    /// One request of the stand-in browser: never a query value.
    public struct BrowserRequest: Decodable, Sendable {
        public var method: String
        public var path: String
        public var status: Int
        /// The names of the query parameters.
        public var query: [String]
    }

    /// The provider's database rows a sign-in leaves behind (Glewlwyd stores hashes of codes and tokens).
    public struct Records: Decodable, Sendable {
        /// A person's session at the provider (its sign-in cookie).
        public struct UserSession: Decodable, Sendable {
            public var username: String
            /// 0 once the session has ended.
            public var enabled: Int
        }
        /// The people's sessions, oldest first.
        public var user_sessions: [UserSession]
        /// A pushed authorization request.
        public struct PushedRequest: Decodable, Sendable {
            public var client_id: String
            public var redirect_uri: String
            /// 0 created, 1 validated, 2 completed (used to issue a code).
            public var status: Int
            /// The DPoP key thumbprint the push was bound to, if any.
            public var jkt: String?
            public var username: String?
            public var has_code_challenge: Int
        }
        /// An authorization code.
        public struct Code: Decodable, Sendable {
            public var client_id: String
            public var username: String
            public var redirect_uri: String
            public var jkt: String?
            /// 0 once exchanged.
            public var enabled: Int
        }
        /// A refresh token.
        public struct RefreshToken: Decodable, Sendable {
            public var client_id: String?
            public var username: String
            /// `{SHA512}` + base64 of the token's SHA-512.
            public var token_hash: String
            /// The DPoP key thumbprint the token is bound to, if any.
            public var jkt: String?
            /// 0 once revoked.
            public var enabled: Int
        }
        /// An access token.
        public struct AccessToken: Decodable, Sendable {
            public var client_id: String?
            public var username: String?
            public var jti: String?
            public var enabled: Int
        }
        /// A DPoP proof the provider accepted (its `jti` is kept against replay).
        public struct DPoPProof: Decodable, Sendable {
            public var client_id: String
            public var jkt: String
            public var htm: String
            public var htu: String
        }
        /// The client IDs registered through its dynamic registration endpoint.
        public var registered_clients: [String]
        public var par: [PushedRequest]
        public var codes: [Code]
        public var refresh_tokens: [RefreshToken]
        public var access_tokens: [AccessToken]
        public var dpop_proofs: [DPoPProof]
    }
}
