// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// Where an ``AuthStateFile`` keeps its tokens.
public enum StorageBackend: String, Sendable, Hashable, Codable, CaseIterable {
    /// Everything in the state file itself (mode 0600).
    case file
    /// The whole state in the freedesktop Secret Service (GNOME Keyring, KWallet), through libsecret; the state
    /// file is then an index without secrets: issuer, client, subject and revision.
    case secretService = "secret-service"
}
