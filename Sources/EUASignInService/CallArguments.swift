// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// The checked arguments of the interface's calls: types inside the `a{sv}` dictionaries, lengths, URL forms.
/// GDBus has checked the top-level signature already (a wrong one is `org.freedesktop.DBus.Error.InvalidArgs`).
enum CallArguments {
    /// The longest text accepted in any argument (an issuer, a client id, a hint), in bytes.
    static let maximumText = 2048
    /// The most entries of a dictionary, and the most scopes or resources.
    static let maximumEntries = 32

    /// The arguments of `SignIn`.
    struct SignIn: Sendable {
        var issuer: String
        var clientID: String
        var scopes: [String]
        var resources: [String]
        var handleToken: String?
        var loginHint: String?
        var prompt: String?
        var maxAge: UInt32?
        var account: String?
        var timeout: UInt32?
        var agent: String?
    }

    /// Reads `SignIn(s parent_window, a{sv} client, a{sv} options)`.
    static func signIn(_ parameters: OpaquePointer) throws(ServiceError) -> SignIn {
        let client = try dictionary(parameters, 1, "client", known: ["issuer", "client_id", "scopes", "resource"])
        let options = try dictionary(
            parameters, 2, "options",
            known: ["handle_token", "login_hint", "prompt", "max_age", "account", "timeout", "agent"])
        _ = try text(parameters, 0, "parent_window")
        guard let issuer = try client.string("issuer") else {
            throw .invalidArgument("client has no 'issuer' (s); give the issuer's https URL")
        }
        try checkURL(issuer, "client.issuer")
        guard let clientID = try client.string("client_id"), !clientID.isEmpty else {
            throw .invalidArgument(
                "client has no 'client_id' (s); give the app's public client id registered at the issuer")
        }
        let scopes = try client.strings("scopes") ?? ["openid"]
        for scope in scopes
        where scope.isEmpty
            || !scope.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && $0 != "\"" && $0 != "\\" })
        {
            throw .invalidArgument(
                "client.scopes has '\(scope.prefix(64))', which is not a scope token (RFC 6749 §3.3: printable ASCII, no space)"
            )
        }
        let resources = try client.strings("resource") ?? []
        for resource in resources { try checkURL(resource, "client.resource") }
        let handleToken = try options.string("handle_token")
        if let handleToken, !isToken(handleToken) {
            throw .invalidArgument(
                "options.handle_token must be 1-64 letters, digits and underscores (a D-Bus object path element)")
        }
        let timeout = try options.uint32("timeout")
        if let timeout, !(1...3600).contains(timeout) {
            throw .invalidArgument("options.timeout is \(timeout) s; give 1 to 3600 seconds")
        }
        let prompt = try options.string("prompt")
        if let prompt, !["none", "login", "consent", "select_account", "create"].contains(prompt) {
            throw .invalidArgument(
                "options.prompt '\(prompt.prefix(32))' is not one of none, login, consent, select_account, create")
        }
        let account = try options.string("account")
        if let account, !isToken(account) { throw .notFound(account) }
        return SignIn(
            issuer: issuer, clientID: clientID, scopes: scopes, resources: resources, handleToken: handleToken,
            loginHint: try options.string("login_hint"), prompt: prompt, maxAge: try options.uint32("max_age"),
            account: account, timeout: timeout, agent: try options.string("agent"))
    }

    /// Reads `GetAccessToken(s account, a{sv} options)`: the account, `min_valid` and `id_token`.
    static func getAccessToken(_ parameters: OpaquePointer) throws(ServiceError) -> (
        account: String, minValid: UInt32, idToken: Bool
    ) {
        let account = try text(parameters, 0, "account")
        let options = try dictionary(parameters, 1, "options", known: ["min_valid", "id_token"])
        let minValid = try options.uint32("min_valid") ?? 60
        guard minValid <= 86_400 else {
            throw .invalidArgument("options.min_valid is \(minValid) s; give at most 86400 (a day)")
        }
        return (account, minValid, try options.bool("id_token") ?? false)
    }

    /// Reads `SignOut(s parent_window, s account, a{sv} options)`.
    /// The arguments of `SignOut`.
    struct SignOut: Sendable {
        var account: String
        var handleToken: String?
        /// Revoke the tokens at the provider (default true).
        var revoke: Bool
        /// Show the provider's end-session page through the host's agent (default false: no browser opens).
        var endSession: Bool
    }

    static func signOut(_ parameters: OpaquePointer) throws(ServiceError) -> SignOut {
        _ = try text(parameters, 0, "parent_window")
        let account = try text(parameters, 1, "account")
        let options = try dictionary(parameters, 2, "options", known: ["handle_token", "revoke", "end_session"])
        let handleToken = try options.string("handle_token")
        if let handleToken, !isToken(handleToken) {
            throw .invalidArgument(
                "options.handle_token must be 1-64 letters, digits and underscores (a D-Bus object path element)")
        }
        return SignOut(
            account: account, handleToken: handleToken, revoke: try options.bool("revoke") ?? true,
            endSession: try options.bool("end_session") ?? false)
    }

    /// Reads `ListAccounts(a{sv} options)` (no option is known yet; unknown ones are refused).
    static func listAccounts(_ parameters: OpaquePointer) throws(ServiceError) {
        _ = try dictionary(parameters, 0, "options", known: [])
    }

    /// A handle token or account id: 1-64 letters, digits and underscores.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64
            && text.utf8.allSatisfy { $0.isASCIILetterOrDigit || $0 == UInt8(ascii: "_") }
    }

    /// An absolute https URL (http only to a loopback host) without fragment or user info, at most ``maximumText``.
    static func checkURL(_ text: String, _ name: String) throws(ServiceError) {
        let fail = ServiceError.invalidArgument(
            "\(name) '\(text.prefix(80))' is not an https URL (http only for 127.0.0.1, "
                + "[::1] or localhost), without user info or fragment, of at most \(maximumText) bytes")
        guard text.utf8.count <= maximumText, !text.contains("#"),
            text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else { throw fail }
        let rest: Substring
        if text.hasPrefix("https://") {
            rest = text.dropFirst(8)
        } else if text.hasPrefix("http://") {
            rest = text.dropFirst(7)
            let authority = rest.prefix { $0 != "/" && $0 != "?" }
            let host = authority.hasPrefix("[") ? authority.prefix { $0 != "]" } + "]" : authority.prefix { $0 != ":" }
            guard ["127.0.0.1", "[::1]", "localhost"].contains(String(host)) else { throw fail }
        } else {
            throw fail
        }
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        guard !authority.isEmpty, !authority.contains("@") else { throw fail }
    }

    private static func text(_ parameters: OpaquePointer, _ index: Int, _ name: String) throws(ServiceError) -> String {
        let value = Variant.Value(Variant.child(parameters, index))
        let text = value.string ?? ""
        guard text.utf8.count <= maximumText else {
            throw .invalidArgument("\(name) has \(text.utf8.count) bytes; at most \(maximumText) are accepted")
        }
        return text
    }

    private static func dictionary(
        _ parameters: OpaquePointer, _ index: Int, _ name: String,
        known: Set<String>
    ) throws(ServiceError) -> Entries {
        let value = Variant.Value(Variant.child(parameters, index))
        guard Variant.count(value.pointer) <= maximumEntries else {
            throw .invalidArgument(
                "\(name) has \(Variant.count(value.pointer)) entries; at most \(maximumEntries) are accepted")
        }
        let entries = Variant.entries(of: value.pointer)
        for entry in entries where !known.contains(entry.key) {
            throw .invalidArgument(
                "\(name) has the key '\(entry.key.prefix(64))', which this version does not know; "
                    + (known.isEmpty ? "give no keys" : "known: " + known.sorted().joined(separator: ", ")))
        }
        return Entries(name: name, values: Dictionary(entries.map { ($0.key, $0.value) }) { first, _ in first })
    }

    /// The entries of one `a{sv}` argument, read with their expected types.
    struct Entries {
        var name: String
        var values: [String: Variant.Value]

        func string(_ key: String) throws(ServiceError) -> String? {
            guard let value = values[key] else { return nil }
            guard let text = value.string else { throw wrongType(key, "s", value) }
            guard text.utf8.count <= CallArguments.maximumText else {
                throw .invalidArgument(
                    "\(name).\(key) has \(text.utf8.count) bytes; at most \(CallArguments.maximumText) are accepted")
            }
            return text
        }

        func strings(_ key: String) throws(ServiceError) -> [String]? {
            guard let value = values[key] else { return nil }
            guard Variant.type(of: value.pointer) == "as" else { throw wrongType(key, "as", value) }
            guard Variant.count(value.pointer) <= CallArguments.maximumEntries else {
                throw .invalidArgument("\(name).\(key) has more than \(CallArguments.maximumEntries) items")
            }
            let texts = value.strings ?? []
            if let long = texts.first(where: { $0.utf8.count > 256 }) {
                throw .invalidArgument(
                    "\(name).\(key) has an item of \(long.utf8.count) bytes; at most 256 are accepted")
            }
            return texts
        }

        func uint32(_ key: String) throws(ServiceError) -> UInt32? {
            guard let value = values[key] else { return nil }
            guard let number = value.uint32 else { throw wrongType(key, "u", value) }
            return number
        }

        func bool(_ key: String) throws(ServiceError) -> Bool? {
            guard let value = values[key] else { return nil }
            guard let flag = value.bool else { throw wrongType(key, "b", value) }
            return flag
        }

        private func wrongType(_ key: String, _ expected: String, _ value: Variant.Value) -> ServiceError {
            .invalidArgument("\(name).\(key) is of type '\(value.type.prefix(16))'; give it as '\(expected)'")
        }
    }
}
