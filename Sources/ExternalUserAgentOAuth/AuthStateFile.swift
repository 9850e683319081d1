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
import ExternalUserAgent
import Synchronization

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
    public static func standard(name: String = "auth-state.json",
                                environment: [String: String] = ProcessInfo.processInfo.environment) -> AuthStateFile {
        let base: String
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            base = state
        } else {
            base = (environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path) + "/.local/state"
        }
        return AuthStateFile(path: base + "/eua/" + name)
    }

    struct Contents: Decodable {
        var format = AuthStateFile.format
        var version = AuthStateFile.version
        /// Counts the saves of this file; absent (0) in files written before revisions.
        var revision = 0
        var configuration: ServiceConfiguration
        var client: ClientCredentials
        var scope: String?
        var tokenResponse: TokenResponse?
        var idTokenClaims: IDTokenClaims?
        var identity: UserIdentity?
        var authorizationError: OAuthErrorResponse?
        /// The DPoP private key (a JWK), for a DPoP sign-in.
        var dpopKey: DPoPKey?
        /// The token request parameters every refresh sends again (`resource`…), in order.
        var refreshParameters: [(name: String, value: String)] = []
        /// The tokens a sign-out revoked: the state gives no token any more.
        var revokedTokens: RevokedTokens?

        init(configuration: ServiceConfiguration, client: ClientCredentials, scope: String?,
             tokenResponse: TokenResponse?, idTokenClaims: IDTokenClaims?, identity: UserIdentity? = nil,
             authorizationError: OAuthErrorResponse?, dpopKey: DPoPKey? = nil,
             refreshParameters: [(name: String, value: String)] = [], revokedTokens: RevokedTokens? = nil) {
            self.revokedTokens = revokedTokens
            self.dpopKey = dpopKey
            self.refreshParameters = refreshParameters
            self.configuration = configuration
            self.client = client
            self.scope = scope
            self.tokenResponse = tokenResponse
            self.idTokenClaims = idTokenClaims
            self.identity = identity
            self.authorizationError = authorizationError
        }

        enum CodingKeys: String, CodingKey {
            case format, version, revision, configuration, client, scope
            case tokenResponse = "token_response"
            case idTokenClaims = "id_token_claims"
            case identity = "userinfo"
            case authorizationError = "authorization_error"
            case dpopKey = "dpop_key"
            case refreshParameters = "refresh_parameters"
            case revokedTokens = "revoked"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            format = try container.decode(String.self, forKey: .format)
            version = try container.decode(Int.self, forKey: .version)
            revision = try container.decodeIfPresent(Int.self, forKey: .revision) ?? 0
            guard (0..<Int.max).contains(revision) else {
                throw InvalidFieldError(field: "revision", problem: "is \(revision), not a count of saves")
            }
            configuration = try container.decode(ServiceConfiguration.self, forKey: .configuration)
            client = try container.decode(ClientCredentials.self, forKey: .client)
            scope = try container.decodeIfPresent(String.self, forKey: .scope)
            tokenResponse = try container.decodeIfPresent(SavedTokens.self, forKey: .tokenResponse)?.tokens
            idTokenClaims = try container.decodeIfPresent(IDTokenClaims.self, forKey: .idTokenClaims)
            identity = try container.decodeIfPresent(UserIdentity.self, forKey: .identity)
            authorizationError = try container.decodeIfPresent(OAuthErrorResponse.self, forKey: .authorizationError)
            dpopKey = try container.decodeIfPresent(DPoPKey.self, forKey: .dpopKey)
            refreshParameters = try container.decodeIfPresent([SavedParameter].self, forKey: .refreshParameters)?
                .map { ($0.name, $0.value) } ?? []
            revokedTokens = try container.decodeIfPresent(RevokedTokens.self, forKey: .revokedTokens)
        }

        /// The file's JSON object; throws what ``IDTokenClaims`` throws for a time it cannot write.
        func jsonValue() throws -> JSONValue {
            var members = JSONMembers<CodingKeys>()
            members.set(.format, format)
            members.set(.version, version)
            members.set(.revision, revision)
            members.set(.configuration, configuration.jsonValue)
            members.set(.client, client.jsonValue)
            members.set(.scope, scope)
            members.set(.tokenResponse, tokenResponse.map(SavedTokens.jsonValue))
            members.set(.idTokenClaims, try idTokenClaims?.jsonValue())
            members.set(.identity, identity?.jsonValue)
            members.set(.authorizationError, authorizationError?.jsonValue)
            members.set(.dpopKey, dpopKey?.jsonValue)
            members.set(.revokedTokens, revokedTokens?.jsonValue)
            if !refreshParameters.isEmpty {
                members.set(.refreshParameters, JSONValue.array(refreshParameters.map {
                    .object(["name": .string($0.name), "value": .string($0.value)])
                }))
            }
            return members.object
        }
    }

    /// One saved refresh parameter: `{"name": …, "value": …}`, both strings, the name not empty.
    private struct SavedParameter: Decodable {
        var name: String
        var value: String

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            value = try container.decode(String.self, forKey: .value)
            guard !name.isEmpty else { throw InvalidFieldError(field: "refresh_parameters", problem: "has an empty name") }
        }

        enum CodingKeys: String, CodingKey { case name, value }
    }

    /// A token response as saved: the server's fields, and `received_at`, this client's own time,
    /// which only the file may set (the server's JSON never does).
    private struct SavedTokens: Decodable {
        var tokens: TokenResponse

        enum CodingKeys: String, CodingKey { case receivedAt = "received_at" }

        init(_ tokens: TokenResponse) { self.tokens = tokens }

        init(from decoder: any Decoder) throws {
            tokens = try TokenResponse(from: decoder)
            tokens.receivedAt = try JSONFields<CodingKeys>(decoder).requiredNumericDate(.receivedAt)
        }

        /// The server's fields, and `received_at` in seconds since 1970.
        static func jsonValue(_ tokens: TokenResponse) -> JSONValue {
            guard case .object(var members) = tokens.jsonValue else { return tokens.jsonValue }
            members[CodingKeys.receivedAt.stringValue] = .number(tokens.receivedAt.timeIntervalSince1970)
            return .object(members)
        }
    }

    /// What a state file says of itself, read without `Codable` (it is read before every save); `nil` when
    /// the text is not a JSON object or one of these members has the wrong type.
    private struct Marker {
        var format: String?
        var version: Int?
        var revision: Int?
        var storage: String?

        enum CodingKeys: String, CodingKey { case format, version, revision, storage }

        init?(_ data: Data) {
            guard let fields = try? JSONFields<CodingKeys>(json: data) else { return nil }
            do {
                format = try fields.optionalString(.format)
                // Any whole number: the version is compared, the revision checked where the contents are read.
                version = try fields.optionalWholeNumber(.version, in: -(1 << 53)...(1 << 53))
                revision = try fields.optionalWholeNumber(.revision, in: -(1 << 53)...(1 << 53))
                storage = try fields.optionalString(.storage)
            } catch {
                return nil
            }
        }
    }

    /// What the file holds with the secret-service back end: where to find the state, no secret.
    private struct Index: Decodable {
        var format = AuthStateFile.format
        var version = AuthStateFile.version
        var revision: Int
        var storage = StorageBackend.secretService.rawValue
        var issuer: String
        var client_id: String
        var subject: String

        var key: AccountKey { AccountKey(issuer: issuer, clientID: client_id, subject: subject.isEmpty ? nil : subject) }

        var jsonValue: JSONValue {
            .object(["format": .string(format), "version": .number(Double(version)), "revision": .number(Double(revision)),
                     "storage": .string(storage), "issuer": .string(issuer), "client_id": .string(client_id),
                     "subject": .string(subject)])
        }
    }

    // MARK: - Lock

    /// An advisory lock on ``lockPath``, held until `release()` (or the process ends).
    final class Lock: Sendable {
        private let descriptor: Mutex<Int32>

        fileprivate init(descriptor: Int32) {
            self.descriptor = Mutex(descriptor)
        }

        /// Releases the lock; later calls do nothing.
        func release() {
            descriptor.withLock { fd in
                if fd >= 0 { close(fd) }
                fd = -1
            }
        }

        deinit { release() }
    }

    /// Takes the lock, waiting up to ``lockTimeout`` for another process to release it.
    ///
    /// A lock is released when its process ends, however it ends, so a lock that stays taken is held by
    /// a running process. Throws `timedOut` naming the lock file, `stateFileInvalid` when the lock file
    /// cannot be used, `programCanceled` when the task is cancelled while waiting.
    func lock() async throws -> Lock {
        try makeFolder()
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw invalid("its lock file \(lockPath) cannot be opened: \(Self.errnoText())") }
        let lock = Lock(descriptor: fd)
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == getuid() else {
            throw invalid("its lock file \(lockPath) is not a regular file of this user; remove it")
        }
        if info.st_mode & 0o077 != 0 { fchmod(fd, 0o600) }
        let deadline = ContinuousClock.now + lockTimeout
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let error = errno
            guard error == EWOULDBLOCK || error == EINTR else {
                throw invalid("its lock file \(lockPath) cannot be locked: \(String(cString: strerror(error)))")
            }
            guard ContinuousClock.now < deadline else {
                throw ExternalUserAgentError(.timedOut,
                    "authorization state file \(path): another process has held its lock (\(lockPath)) for more "
                        + "than \(lockTimeout); it may be refreshing with a slow server — try again, or stop that "
                        + "process (a lock ends with its process)")
            }
            do {
                try await Task.sleep(for: .milliseconds(20))
            } catch {
                throw ExternalUserAgentError(.programCanceled, "waiting for the lock on \(lockPath) was cancelled")
            }
        }
        return lock
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
            throw invalid("another process saved a newer state in it (revision \(current)) since this one was read "
                + "(revision \(base)); it was left as it is — run the command again")
        }
        var contents = contents
        contents.revision = max(current ?? 0, base ?? 0) + 1
        var data = Data(try contents.jsonValue().indentedJSONText.utf8)
        let subject = contents.idTokenClaims?.subject ?? contents.identity?.subject
        let key = AccountKey(issuer: contents.configuration.issuer, clientID: contents.client.clientID, subject: subject)
        // A refresh (with `base`) stays where the state is; a new sign-in goes to ``backend``.
        let target = base == nil ? backend : savedIndex != nil ? .secretService : .file
        if target == .secretService {
            let claims = contents.idTokenClaims
            let account = claims?.email ?? claims?.preferredUsername ?? contents.identity?.email ?? subject ?? "unknown account"
            try SecretService.store(String(decoding: data, as: UTF8.self), key: key,
                                    label: "eua: \(key.issuer) \(account) (\(key.clientID))", file: path)
            data = Data(Index(revision: contents.revision, issuer: key.issuer, client_id: key.clientID,
                              subject: subject ?? "").jsonValue.indentedJSONText.utf8)
        } else if let index = savedIndex {
            try SecretService.clear(key: index.key, file: path)
        }
        do throws(PrivateFile.Failure) {
            try PrivateFile.write(data, to: path)
        } catch {
            throw invalid(error.reason)
        }
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

    private func makeFolder() throws {
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
            throw invalid("others may read or change it (mode \(String(info.st_mode & 0o777, radix: 8))); "
                + "it holds tokens, so it was not used — run 'chmod 600 \(path)' if it is yours")
        }
        let bytes: [UInt8]?
        do throws(SmallFiles.Failure) {
            bytes = try SmallFiles.read(path, limit: Self.maximumSize)
        } catch {
            throw invalid(error.reason + (error.isTooLarge ? "; a saved state is a few KiB — delete it and sign in again" : ""))
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
            throw invalid("it is a Secret Service index without issuer, client_id or subject — delete it and sign in again")
        }
        guard let secret = try SecretService.lookup(key: index.key, file: path) else {
            throw invalid("its tokens are no longer in the Secret Service (item 'eua: \(index.issuer) … (\(index.client_id))' "
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
            throw invalid("it has format version \(marker.version.map(String.init) ?? "none"); this program reads version \(Self.version)")
        }
        do {
            return try decoder.decode(Contents.self, from: data)
        } catch let error as InvalidFieldError {
            throw invalid("it is corrupt: \(error) — delete it and sign in again", underlying: error)
        } catch {
            throw invalid("it is incomplete or corrupt — delete it and sign in again")
        }
    }

    private func invalid(_ reason: String, underlying: (any Error & Sendable)? = nil,
                         remedies: [ExternalUserAgentError.Remedy] = []) -> ExternalUserAgentError {
        ExternalUserAgentError(.stateFileInvalid, "authorization state file \(path): \(reason)", underlying: underlying,
                               remedies: remedies)
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}
