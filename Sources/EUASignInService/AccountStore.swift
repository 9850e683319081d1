// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import CSecret

/// The service's accounts in the Secret Service: one item per account, carrying its owner's app id (attribute
/// `app`) and a random account id (attribute `account`), holding the whole ``AuthState`` (refresh token
/// included) as its secret. Every lookup names the owner, so another app's account is not found, exactly like one
/// that does not exist. Every call blocks (libsecret's own D-Bus round trips): run it off the main loop.
struct AccountStore: Sendable {
    /// What ListAccounts tells about an account (never a token).
    struct Summary: Sendable, Equatable {
        var account: String
        var issuer: String
        var client: String
        var subject: String
        var displayName: String
        var scopes: [String]
    }

    /// Stores `state` (a secret) as `app`'s account `summary.account`, replacing what it held.
    func store(app: String, summary: Summary, state: String) throws(ServiceError) {
        var error: UnsafeMutablePointer<CChar>?
        let fields = [summary.issuer, summary.client, summary.subject, summary.displayName].map(Self.clean)
        let label = "eua sign-in: \(fields[3]) at \(fields[0]) for \(Self.clean(app))"
        guard
            csecret_account_store(
                app, summary.account, fields[0], fields[1], fields[2], fields[3],
                summary.scopes.joined(separator: " "), label, state, &error) == 1
        else {
            throw failure("could not store the account", error)
        }
    }

    /// The stored state of `app`'s `account`, or `nil` when `app` has no such account.
    func state(app: String, account: String) throws(ServiceError) -> String? {
        var error: UnsafeMutablePointer<CChar>?
        guard let found = csecret_account_lookup(app, account, &error) else {
            if error != nil { throw failure("could not read the account", error) }
            return nil
        }
        defer { csecret_free(found) }
        return String(cString: found)
    }

    /// `app`'s accounts.
    func accounts(app: String) throws(ServiceError) -> [Summary] {
        var error: UnsafeMutablePointer<CChar>?
        guard let text = csecret_account_list(app, &error) else { throw failure("could not list the accounts", error) }
        defer { csecret_free(text) }
        return String(cString: text).split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 6 else { return nil }
            return Summary(
                account: fields[0], issuer: fields[1], client: fields[2], subject: fields[3],
                displayName: fields[4], scopes: fields[5].split(separator: " ").map(String.init))
        }
    }

    /// Removes `app`'s `account` (nothing when there is none).
    func remove(app: String, account: String) throws(ServiceError) {
        var error: UnsafeMutablePointer<CChar>?
        guard csecret_account_clear(app, account, &error) == 1 else {
            throw failure("could not remove the account", error)
        }
    }

    /// Fails unless the Secret Service runs (or is activatable) with its default collection unlocked: a sign-in
    /// checks this before the browser opens, and a lookup that found nothing before it answers `NotFound` (a locked
    /// collection gives no secret, which is not the same as no account). It shows no unlock prompt: a sign-in's
    /// handle would wait on a person the caller does not know about.
    func checkReady() throws(ServiceError) {
        var why: UnsafeMutablePointer<CChar>?
        let state = csecret_keyring_state(5000, &why)
        let reason = why.map { String(cString: $0) } ?? "no reason given"
        if let why { csecret_free(why) }
        switch state {
        case Int32(CSECRET_KEYRING_READY):
            return
        case Int32(CSECRET_KEYRING_MISSING):
            throw .failed(
                "no keyring: \(reason). Start one in this session (GNOME Keyring, KWallet's Secret Service), "
                    + "then call again; the sign-in service keeps tokens in the keyring only, never in a file")
        case Int32(CSECRET_KEYRING_LOCKED):
            throw .failed(
                "the keyring is locked: \(reason). Unlock it (for example in GNOME's Passwords and Keys, "
                    + "Seahorse), then call again; the sign-in service keeps tokens in the keyring only, never in a file"
            )
        default:
            throw .failed(
                "the keyring (Secret Service) could not be asked whether it is unlocked: \(reason). Is a keyring "
                    + "(GNOME Keyring, KWallet) running in this session? Then call again")
        }
    }

    /// `text` with no tab, newline or other control character (they separate the listed fields), at most 512 bytes.
    static func clean(_ text: String) -> String {
        String(
            String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : $0 }).prefix(
                512))
    }

    /// Why a keyring call failed: the keyring's own state when it is missing or locked (the clearer message),
    /// else libsecret's reason.
    private func failure(_ what: String, _ error: UnsafeMutablePointer<CChar>?) -> ServiceError {
        let reported = Self.keyring(what, error)
        do throws(ServiceError) {
            try checkReady()
        } catch {
            return error
        }
        return reported
    }

    private static func keyring(_ what: String, _ error: UnsafeMutablePointer<CChar>?) -> ServiceError {
        let reason = error.map { String(cString: $0) } ?? "no reason given"
        if let error { csecret_free(error) }
        return .failed(
            "the keyring (Secret Service) \(what): \(reason). Is a keyring (GNOME Keyring, KWallet) running "
                + "and unlocked in this session? Unlock it, then call again; the service keeps tokens nowhere else")
    }
}
