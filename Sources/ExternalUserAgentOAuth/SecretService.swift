// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import CSecret
import ExternalUserAgentCore
import ExternalUserAgentSystem

/// The freedesktop Secret Service through libsecret (opened on first use): items of the schema
/// `org.externaluseragent.Token`, found by their issuer, client and subject attributes.
enum SecretService {
    /// Whether a Secret Service answers on the session bus (asked with a deadline of `timeout`), and if not, why.
    static func running(timeout: Duration = .milliseconds(500)) -> (running: Bool, why: String?) {
        var why: UnsafeMutablePointer<CChar>?
        let milliseconds = Int32(clamping: timeout.wholeMilliseconds)
        let running = csecret_service_running(milliseconds, &why) == 1
        return (running, take(why))
    }

    /// Stores `secret` as the item of `key`, labelled `label` (what Seahorse and KWallet show).
    static func store(_ secret: String, key: AccountKey, label: String, file: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        guard csecret_store(key.issuer, key.clientID, key.subject ?? "", label, secret, &error) == 1 else {
            throw failure("could not store its tokens", take(error), file: file)
        }
    }

    /// The secret of `key`'s item; `nil` when there is none.
    static func lookup(key: AccountKey, file: String) throws -> String? {
        var error: UnsafeMutablePointer<CChar>?
        guard let found = csecret_lookup(key.issuer, key.clientID, key.subject ?? "", &error) else {
            if let message = take(error) { throw failure("could not read its tokens", message, file: file) }
            return nil
        }
        defer { csecret_free(found) }
        return String(cString: found)
    }

    /// Removes `key`'s item (nothing when there is none).
    static func clear(key: AccountKey, file: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        guard csecret_clear(key.issuer, key.clientID, key.subject ?? "", &error) == 1 else {
            throw failure("could not remove its tokens", take(error), file: file)
        }
    }

    private static func take(_ text: UnsafeMutablePointer<CChar>?) -> String? {
        guard let text else { return nil }
        defer { csecret_free(text) }
        return String(cString: text)
    }

    private static func failure(_ what: String, _ message: String?, file: String) -> ExternalUserAgentError {
        ExternalUserAgentError(
            .stateFileInvalid,
            "authorization state file \(file): the Secret Service \(what) (\(message ?? "no reason given")); is the "
                + "keyring unlocked? Or set [storage] backend = \"file\" (or EUA_STORAGE=file) and sign in again")
    }
}
