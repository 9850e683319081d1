// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif

/// An error the service answers a call with: one of the `org.externaluseragent.SignIn.Error` names and a message
/// that says what happened and what to do. Never a token in the message.
struct ServiceError: Error, Sendable {
    /// The D-Bus error name.
    let name: String
    /// What happened and what to do.
    let message: String

    static let prefix = "org.externaluseragent.SignIn.Error."

    /// The caller, or its client id or issuer, may not do this; or too many requests are in flight.
    static func notAllowed(_ message: String) -> ServiceError {
        ServiceError(name: prefix + "NotAllowed", message: message)
    }
    /// An argument has the wrong type, size or form.
    static func invalidArgument(_ message: String) -> ServiceError {
        ServiceError(name: prefix + "InvalidArgument", message: message)
    }
    /// No account of this caller's has that id (another app's account answers the same).
    static func notFound(_ account: String) -> ServiceError {
        ServiceError(
            name: prefix + "NotFound",
            message: "no account '\(account.prefix(64))' is signed in for this app; list them with ListAccounts, "
                + "or sign in with SignIn")
    }
    /// The refresh failed in a way only a new sign-in mends.
    static func interactionRequired(_ message: String) -> ServiceError {
        ServiceError(name: prefix + "InteractionRequired", message: message)
    }
    /// Anything else: the keyring, the provider, the service itself.
    static func failed(_ message: String) -> ServiceError { ServiceError(name: prefix + "Failed", message: message) }
    /// The service could not start (not sent on the bus).
    static func startup(_ message: String) -> ServiceError { ServiceError(name: prefix + "Failed", message: message) }
}

/// The service's diagnostics, on standard error (the journal, when systemd starts it). Never a token or a code.
enum Log {
    static func info(_ text: String) { write("eua-signin-service: " + text + "\n") }
    static func error(_ text: String) { write("eua-signin-service: error: " + text + "\n") }

    private static func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in _ = Glibc.write(2, bytes.baseAddress, bytes.count) }
    }
}
