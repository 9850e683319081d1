// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore
import ExternalUserAgentSystem

/// The file's reading and writing, awaited from async code on a thread of their own (``BlockingCall``): a read, a
/// write and its `fsync`, and the Secret Service's D-Bus calls (libsecret's `_sync` functions, bounded by D-Bus's own
/// timeout) block their thread, and must not block one of Swift's few cooperative threads.
extension AuthStateFile {
    /// `load()`, on a thread of its own.
    func load() async throws -> Contents {
        try await offThePool("read") { try load() }
    }

    /// `save(_:over:)`, on a thread of its own; it runs to its end even when the task is cancelled meanwhile.
    func save(_ contents: Contents, over base: Int?) async throws -> Int {
        try await offThePool("written") { try save(contents, over: base) }
    }

    /// `removeStoredSecrets()`, on a thread of its own.
    func removeStoredSecrets() async throws {
        try await offThePool("cleared") { try removeStoredSecrets() }
    }

    private func offThePool<Value: Sendable>(
        _ what: String,
        _ work: @escaping @Sendable () throws -> Value
    ) async throws -> Value {
        do {
            return try await BlockingCall.run(work)
        } catch let error as ThreadUnavailable {
            throw ExternalUserAgentError(
                .stateFileInvalid, "authorization state file \(path): it could not be \(what): \(error)")
        }
    }
}
