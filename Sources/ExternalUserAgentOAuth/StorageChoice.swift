// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore
import ExternalUserAgentSystem

/// Which ``StorageBackend`` new sign-ins are saved to, and why: `[storage] backend` (or `EUA_STORAGE`) when
/// set, else the Secret Service when one answers on the session bus, else the file.
public struct StorageChoice: Sendable, Hashable {
    /// The back end chosen.
    public var backend: StorageBackend
    /// Why, in words (`EUA_STORAGE`, a file and line, or what the session bus said).
    public var reason: String

    /// A choice made elsewhere: `backend`, because of `reason`.
    public init(backend: StorageBackend, reason: String) {
        self.backend = backend
        self.reason = reason
    }

    /// The choice for `configuration`, as the synchronous `choose(_:timeout:)` makes it, with the session bus asked on a
    /// thread of its own: async code must not hold one of Swift's few cooperative threads while D-Bus answers.
    public static func choose(_ configuration: Configuration, timeout: Duration = .milliseconds(500)) async throws
        -> StorageChoice
    {
        do {
            return try await BlockingCall.run { try choose(configuration, timeout: timeout) }
        } catch let error as ThreadUnavailable {
            throw ExternalUserAgentError(
                .storageUnavailable, "the session bus could not be asked for a Secret Service: \(error)")
        }
    }

    /// The choice for `configuration`. A forced back end that is not available throws `storageUnavailable`
    /// (never a silent fallback); the session bus is asked with a deadline of `timeout`.
    public static func choose(_ configuration: Configuration, timeout: Duration = .milliseconds(500)) throws
        -> StorageChoice
    {
        let origin = configuration[.storageBackend]?.origin.description ?? "configuration"
        switch configuration.storageBackend {
        case "file"?:
            return StorageChoice(backend: .file, reason: "storage.backend is \"file\" (\(origin))")
        case "secret-service"?:
            let (running, why) = SecretService.running(timeout: timeout)
            guard running else {
                throw ExternalUserAgentError(
                    .storageUnavailable,
                    "storage.backend is \"secret-service\" (\(origin)), but no Secret Service answers: "
                        + "\(why ?? "no reason given"); start and unlock one (GNOME Keyring, KWallet), or set "
                        + "storage.backend = \"file\"")
            }
            return StorageChoice(backend: .secretService, reason: "storage.backend is \"secret-service\" (\(origin))")
        default:
            let (running, why) = SecretService.running(timeout: timeout)
            if running {
                return StorageChoice(backend: .secretService, reason: "a Secret Service answers on the session bus")
            }
            return StorageChoice(backend: .file, reason: "\(why ?? "no Secret Service"); files of mode 0600 instead")
        }
    }
}
