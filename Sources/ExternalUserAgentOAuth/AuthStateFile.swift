// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentABI
import ExternalUserAgentSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import ExternalUserAgentCore

/// Where an ``AuthState`` is saved: a private JSON file, written atomically, changed under a lock.
///
/// Writes go to a temporary file (mode 0600) in the same folder, which is flushed and renamed over
/// the old one, so a reader sees the old state or the new, never half of one. The folder is made
/// with mode 0700 when missing. Reading refuses a file that is corrupt, not an ExternalUserAgent
/// state, not owned by this user, or readable by others (`stateFileInvalid`).
///
/// Processes that change the same file take turns: ``AuthState`` holds an advisory lock (`flock`) on
/// ``lockPath`` (mode 0600, kept after use) from reading the file before a refresh to saving after it.
/// Every save records a revision number, and a state read at an older revision never replaces a newer one.
///
/// With the ``StorageBackend/secretService`` back end the whole state is an item of the Secret Service, labelled
/// `eua: <issuer> <account> (<client>)` with the attributes issuer, client and subject, and the file at
/// ``path`` is an index without secrets (format, version, revision, storage, issuer, client_id, subject): the
/// lock and the revision rule work on it as on a file that holds everything. Reading follows what the file says,
/// whatever ``backend`` is.
public struct AuthStateFile: Sendable, Hashable {
    /// The format marker written in every file.
    public static let format = "eua-auth-state"
    /// The format version written in every file; a file of another version is refused (`stateFileInvalid`).
    public static let version = 1

    /// The largest state file read, 1 MiB: a saved state is a few KiB, and the limit keeps a mistaken path or a
    /// hostile file from costing memory and time.
    static let maximumSize = 1 << 20

    /// The state file's path.
    public let path: String
    /// How long to wait for another process that holds the lock (it may be refreshing) before giving up.
    public var lockTimeout: Duration
    /// Where a new sign-in's save puts the tokens (``StorageBackend/file`` unless given); a refresh keeps them
    /// where the saved state is.
    public var backend: StorageBackend = .file

    /// The file at `path`, waiting up to 60 s for another process's lock.
    public init(path: String) {
        self.init(path: path, lockTimeout: .seconds(60))
    }

    /// The file at `path`, waiting up to `lockTimeout` for another process's lock.
    public init(path: String, lockTimeout: Duration) {
        self.path = path
        self.lockTimeout = lockTimeout
    }

    /// The file at `path`, saving to `backend`, waiting up to 60 s for another process's lock.
    public init(path: String, backend: StorageBackend) {
        self.init(path: path, lockTimeout: .seconds(60))
        self.backend = backend
    }

    /// The lock file beside the state: `<path>.lock`.
    public var lockPath: String { path + ".lock" }

    /// `$XDG_STATE_HOME/eua/<name>` (default `~/.local/state/eua/auth-state.json`).
    public static func standard(
        name: String = "auth-state.json",
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> AuthStateFile {
        let base: String
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            base = state
        } else {
            base = (environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path) + "/.local/state"
        }
        return AuthStateFile(path: base + "/eua/" + name)
    }

    // MARK: - Reading and writing

    /// Writes `contents` as the next revision and returns it.
    ///
    /// With `base`, the revision `contents` was read at, a file that holds a later revision (saved by
    /// a process that did not take the lock) is left as it is: `stateFileInvalid`. Without `base` (a
    /// new sign-in), the file is replaced whatever it holds.
    func save(_ contents: Contents, over base: Int?) throws -> Int {
        // What the file holds now, read once: its revision, and whether it is a Secret Service index.
        let saved = SavedFile(savedBytes())
        let current = saved?.revision
        let savedIndex = try? saved?.index()
        if let base, let current, current > base {
            throw invalid(
                "another process saved a newer state in it (revision \(current)) since this one was read "
                    + "(revision \(base)); it was left as it is — run the command again")
        }
        var contents = contents
        contents.revision = max(current ?? 0, base ?? 0) + 1
        var data = try Self.encoded(contents)
        let subject = contents.idTokenClaims?.subject ?? contents.identity?.subject
        let key = AccountKey(
            issuer: contents.configuration.issuer, clientID: contents.client.clientID, subject: subject)
        // A refresh (with `base`) stays where the state is; a new sign-in goes to ``backend``.
        let target = base == nil ? backend : savedIndex != nil ? .secretService : .file
        if target == .secretService {
            let claims = contents.idTokenClaims
            let account =
                claims?.email ?? claims?.preferredUsername ?? contents.identity?.email ?? subject ?? "unknown account"
            try SecretService.store(
                String(decoding: data, as: UTF8.self), key: key,
                label: "eua: \(key.issuer) \(account) (\(key.clientID))", file: path)
            data = try Self.encoded(
                Index(revision: contents.revision, issuer: key.issuer, client_id: key.clientID, subject: subject ?? ""))
        } else if let index = savedIndex {
            try SecretService.clear(key: index.key, file: path)
        }
        try writeAtomically(data)
        return contents.revision
    }

    /// Deletes the saved state — and its Secret Service item when the file is an index — holding the lock (a
    /// refresh that another process is running finishes first); the lock file stays. Returns whether there was a
    /// state to delete. Throws `stateFileInvalid` when the file cannot be deleted, and `timedOut` when another process holds the lock for longer than ``lockTimeout``.
    public func remove() async throws -> Bool {
        let lock = try await lock()
        defer { lock.release() }
        try await removeStoredSecrets()
        guard unlink(path) == 0 else {
            if errno == ENOENT { return false }
            throw invalid("it could not be deleted: \(Self.errnoText()); delete it yourself to forget the sign-in")
        }
        return true
    }

    /// The Secret Service index the file holds now; `nil` when it holds the state itself (or nothing).
    private func savedIndex() throws -> Index? {
        try SavedFile(savedBytes())?.index()
    }

    /// Where the saved state's tokens are now, as the file says.
    func storedBackend() -> StorageBackend {
        (try? savedIndex()) != nil ? .secretService : .file
    }

    /// Removes the state's Secret Service item when the file is an index (nothing otherwise); call it under
    /// the lock before deleting the file, so signing out leaves no tokens in the keyring.
    public func removeStoredSecrets() throws {
        guard let index = try savedIndex() else { return }
        try SecretService.clear(key: index.key, file: path)
    }

    /// The file's bytes now, for its marker; `nil` when there is none or it cannot be read.
    private func savedBytes() -> Data? {
        (try? SmallFiles.read(path, limit: Self.maximumSize)).map { Data($0) }
    }

    /// What a saved file holds, by its marker: `nil` for no file, or one whose marker cannot be read.
    private struct SavedFile {
        let data: Data
        let marker: Marker

        init?(_ data: Data?) {
            guard let data, let marker = Marker(data) else { return nil }
            (self.data, self.marker) = (data, marker)
        }

        /// The revision, when the file is a state of this format (one written before revisions: 0).
        var revision: Int? { marker.format == AuthStateFile.format ? marker.revision ?? 0 : nil }

        /// The Secret Service index, when the file is one.
        func index() throws -> Index? {
            guard marker.storage == StorageBackend.secretService.rawValue else { return nil }
            return try JSONDecoder().decode(Index.self, from: data)
        }
    }

    func makeFolder() throws {
        if let problem = SmallFiles.makeFolders(SmallFiles.folder(of: path), mode: 0o700) {
            throw invalid("its folder could not be made: \(problem)")
        }
    }

    func load() throws -> Contents {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw invalid("it cannot be read (\(Self.errnoText())); sign in first", remedies: [.signIn])
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw invalid("it is not a regular file") }
        guard info.st_uid == getuid() else { throw invalid("it belongs to another user; it was not used") }
        guard info.st_mode & 0o077 == 0 else {
            throw invalid(
                "others may read or change it (mode \(String(info.st_mode & 0o777, radix: 8))); "
                    + "it holds tokens, so it was not used — run 'chmod 600 \(path)' if it is yours")
        }
        let bytes: [UInt8]?
        do throws(SmallFiles.Failure) {
            bytes = try SmallFiles.read(path, limit: Self.maximumSize)
        } catch {
            throw invalid(
                error.reason + (error.isTooLarge ? "; a saved state is a few KiB — delete it and sign in again" : ""))
        }
        guard let bytes else { throw invalid("it is gone; sign in again", remedies: [.signIn]) }
        let data = Data(bytes)
        guard Marker(data)?.storage == StorageBackend.secretService.rawValue else {
            return try decode(data)
        }
        let index: Index
        do {
            index = try JSONDecoder().decode(Index.self, from: data)
        } catch {
            throw invalid(
                "it is a Secret Service index without issuer, client_id or subject — delete it and sign in again")
        }
        guard let secret = try SecretService.lookup(key: index.key, file: path) else {
            throw invalid(
                "its tokens are no longer in the Secret Service (item 'eua: \(index.issuer) … (\(index.client_id))' "
                    + "was removed, or another keyring is open); sign in again", remedies: [.signIn])
        }
        let contents = try decode(Data(secret.utf8))
        guard contents.configuration.issuer == index.issuer, contents.client.clientID == index.client_id else {
            throw invalid("the Secret Service item it names is for another issuer or client; sign in again")
        }
        return contents
    }

    /// Reads the contents of a state file from `data`: `stateFileInvalid` when it is not one, naming
    /// a field of the wrong type or out of range (never a token).
    func decode(_ data: Data) throws -> Contents {
        let decoder = JSONDecoder()
        guard let marker = Marker(data) else {
            throw invalid("it is not JSON; it may be corrupt — delete it and sign in again")
        }
        guard marker.format == Self.format else {
            throw invalid("it is not an ExternalUserAgent authorization state (no \"format\": \"\(Self.format)\")")
        }
        guard marker.version == Self.version else {
            throw invalid(
                "it has format version \(marker.version.map(String.init) ?? "none"); this program reads version \(Self.version)"
            )
        }
        do {
            return try decoder.decode(Contents.self, from: data)
        } catch let error as InvalidFieldError {
            throw invalid("it is corrupt: \(error) — delete it and sign in again", underlying: error)
        } catch {
            throw invalid("it is incomplete or corrupt — delete it and sign in again")
        }
    }

    func invalid(
        _ reason: String, underlying: (any Error & Sendable)? = nil,
        remedies: [ExternalUserAgentError.Remedy] = []
    ) -> ExternalUserAgentError {
        ExternalUserAgentError(
            .stateFileInvalid, "authorization state file \(path): \(reason)", underlying: underlying,
            remedies: remedies)
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }
}
