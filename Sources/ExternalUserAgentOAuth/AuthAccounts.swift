// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ExternalUserAgentCore

/// Several signed-in accounts, one ``AuthStateFile`` each in a private folder, keyed by issuer, client
/// and subject (``AccountKey``): a new sign-in with the same key replaces its account, another subject
/// adds one. The counterpart of MSAL's account list.
///
/// Each account's file keeps the rules of a single state file (lock, revision, no lost update), so
/// processes refreshing different accounts do not wait for each other. A state file of the earlier
/// single-account layout (``legacyFile``) is moved into the folder, under its lock, the first time the
/// accounts are read.
public struct AuthAccounts: Sendable, Hashable {
    /// The folder of the account files (made with mode 0700).
    public let folder: String
    /// The single state file of earlier versions, moved into ``folder`` when found; the client that
    /// `eua register` saves stays beside it.
    public let legacyFile: AuthStateFile?
    /// Where new sign-ins are saved (``StorageBackend/file`` unless set; see ``StorageChoice``).
    public var backend: StorageBackend = .file

    /// The accounts in `folder`, taking in `legacyFile` when there is one.
    public init(folder: String, legacyFile: AuthStateFile? = nil) {
        self.folder = folder
        self.legacyFile = legacyFile
    }

    /// `$XDG_STATE_HOME/eua/accounts` (default `~/.local/state/eua/accounts`), taking in the single state
    /// file of earlier versions, `$XDG_STATE_HOME/eua/auth-state.json`.
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> AuthAccounts {
        let legacy = AuthStateFile.standard(environment: environment)
        let base = String(legacy.path[..<(legacy.path.lastIndex(of: "/") ?? legacy.path.endIndex)])
        return AuthAccounts(folder: base + "/accounts", legacyFile: legacy)
    }

    /// The file of the account with `key` (whether or not it is signed in).
    public func file(for key: AccountKey) -> AuthStateFile {
        AuthStateFile(path: folder + "/" + key.fileName, backend: backend)
    }

    /// What ``listing()`` found: the accounts it could read, and the account files it could not.
    public struct Listing: Sendable {
        /// The accounts read, sorted by issuer, then subject, then client.
        public var accounts: [SavedAccount]
        /// One `stateFileInvalid` error per account file that could not be read, naming the file and what is wrong.
        public var unreadable: [ExternalUserAgentError]
    }

    /// Every saved account, sorted by issuer, then subject. Throws `stateFileInvalid` naming a file that
    /// cannot be read (it is never skipped silently: ``listing()`` goes on past it), `timedOut` when the legacy
    /// file stays locked.
    public func accounts() async throws -> [SavedAccount] {
        let listing = try await listing()
        if let first = listing.unreadable.first { throw first }
        return listing.accounts
    }

    /// Every saved account that can be read, and an error for each account file that cannot (a corrupt, foreign
    /// or shared file), so that one bad file does not hide the others. Throws `timedOut` when the legacy file stays
    /// locked, and what moving it in throws.
    public func listing() async throws -> Listing {
        try await takeInLegacyFile()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
            return Listing(accounts: [], unreadable: [])
        }
        var accounts: [SavedAccount] = []
        var unreadable: [ExternalUserAgentError] = []
        for name in names.sorted() where Self.isAccountFileName(name) {
            let file = AuthStateFile(path: folder + "/" + name)
            do {
                accounts.append(SavedAccount(file: file, contents: try await file.load()))
            } catch let error as ExternalUserAgentError {
                unreadable.append(error)
            } catch {
                unreadable.append(
                    ExternalUserAgentError(
                        .stateFileInvalid, "authorization state file \(file.path): \(error)",
                        underlying: error))
            }
        }
        accounts.sort {
            ($0.key.issuer, $0.key.subject ?? "", $0.key.clientID) < (
                $1.key.issuer, $1.key.subject ?? "", $1.key.clientID
            )
        }
        return Listing(accounts: accounts, unreadable: unreadable)
    }

    /// How many account files the folder holds, without reading them (nor moving ``legacyFile`` in).
    public var savedCount: Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter(Self.isAccountFileName).count
    }

    /// The account `selector` names, or the only one when it is `nil`.
    ///
    /// A selector names an account when it equals its ``SavedAccount/id``, subject, email or username;
    /// else when it begins exactly one account's id, subject, email or username. Throws `notAuthorized`
    /// when no account is saved, `accountChoiceInvalid` listing the accounts when the selector names
    /// none or several, or is `nil` among several.
    public func account(_ selector: String?) async throws -> SavedAccount {
        try account(selector, in: try await listing())
    }

    /// The account `selector` names in `listing`, by the rules of ``account(_:)``; the files it could not read are
    /// left out (the caller says so), unless no account could be read: then the first such file's error is thrown.
    public func account(_ selector: String?, in listing: Listing) throws -> SavedAccount {
        let all = listing.accounts
        if all.isEmpty, let first = listing.unreadable.first { throw first }
        guard !all.isEmpty else {
            throw ExternalUserAgentError(
                .notAuthorized, "no account is signed in (none saved in \(folder)); sign in first",
                remedies: [.signIn])
        }
        guard let selector else {
            if all.count == 1 { return all[0] }
            throw choiceError("several accounts are signed in; name one", all)
        }
        let names = { (account: SavedAccount) in
            [account.id, account.key.subject, account.email, account.username].compactMap { $0 }
        }
        let exact = all.filter { names($0).contains(selector) }
        if exact.count == 1 { return exact[0] }
        if exact.count > 1 { throw choiceError("the account '\(selector)' names several accounts; give an id", exact) }
        let prefixed = selector.isEmpty ? [] : all.filter { names($0).contains { $0.hasPrefix(selector) } }
        if prefixed.count == 1 { return prefixed[0] }
        if prefixed.count > 1 {
            throw choiceError("the account '\(selector)' begins several accounts; say more", prefixed)
        }
        throw choiceError("the account '\(selector)' names no signed-in account", all)
    }

    /// Saves a new sign-in as its account (replacing one with the same key) and returns the file.
    public func save(_ state: AuthState) async throws -> AuthStateFile {
        try await takeInLegacyFile()
        let file = file(for: await state.accountKey)
        try await state.save(to: file)
        return file
    }

    private func choiceError(_ problem: String, _ accounts: [SavedAccount]) -> ExternalUserAgentError {
        let list = accounts.map { "  \($0.label)" }.joined(separator: "\n")
        return ExternalUserAgentError(
            .accountChoiceInvalid,
            "\(problem) (an id, subject, email or username, or the start of one); the accounts are:\n\(list)",
            remedies: [.chooseAccount])
    }

    /// Whether `name` is an account file's: 32 lowercase hexadecimal digits and `.json`.
    static func isAccountFileName(_ name: String) -> Bool {
        guard name.hasSuffix(".json") else { return false }
        let stem = name.dropLast(5)
        return stem.count == 32 && stem.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) }
    }

    /// Moves ``legacyFile`` into the folder under its lock and the account's: to the account's file when
    /// that is missing; when a later sign-in already saved that account, the old file is removed.
    private func takeInLegacyFile() async throws {
        guard let legacy = legacyFile, access(legacy.path, F_OK) == 0 else { return }
        let lock = try await legacy.lock()
        defer { lock.release() }
        guard access(legacy.path, F_OK) == 0 else { return }
        let account = SavedAccount(file: legacy, contents: try await legacy.load())
        let destination = file(for: account.key)
        let destinationLock = try await destination.lock()
        defer { destinationLock.release() }
        if access(destination.path, F_OK) == 0 {
            unlink(legacy.path)
        } else if rename(legacy.path, destination.path) != 0 {
            throw ExternalUserAgentError(
                .stateFileInvalid,
                "authorization state file \(legacy.path): it could not be moved to \(destination.path) "
                    + "(\(String(cString: strerror(errno)))); check the folder's permissions")
        }
    }
}

extension AuthState {
    /// The key this state is saved under in ``AuthAccounts``: its issuer, client, and the subject of its
    /// ID token (else of UserInfo).
    public var accountKey: AccountKey {
        AccountKey(
            issuer: configuration.issuer, clientID: client.clientID,
            subject: idTokenClaims?.subject ?? identity?.subject)
    }
}
