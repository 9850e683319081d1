// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUACommandSupport
import ExternalUserAgentCore
import ExternalUserAgentOAuth
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How `eua refresh`, `eua userinfo` and `eua token` find the saved state: `--state-file`, else the
/// account `--account` names among ``AuthAccounts/standard(environment:)`` (the only one without it).
struct SavedStateChoice: Sendable {
    /// The state file to load and save.
    var file: AuthStateFile
    /// The state file whose neighbour holds the client `eua register` saved.
    var registrationHome: AuthStateFile

    /// `--state-file` and `--account` exclude each other; the message for `validate()`.
    static let conflict =
        "give --state-file or --account, not both: --account picks among the accounts 'eua accounts' lists"

    /// The choice for `stateFile` (`--state-file`) or `account` (`--account`). Throws the store's errors.
    static func choose(stateFile: String?, account: String?, environment: [String: String]) async throws
        -> SavedStateChoice
    {
        if let stateFile {
            return SavedStateChoice(
                file: AuthStateFile(path: stateFile), registrationHome: AuthStateFile(path: stateFile))
        }
        let accounts = AuthAccounts.standard(environment: environment)
        let listing = try await accounts.listing()
        if !listing.accounts.isEmpty { warn(unreadable: listing.unreadable) }
        let chosen = try accounts.account(account, in: listing)
        return SavedStateChoice(file: chosen.file, registrationHome: accounts.legacyFile ?? chosen.file)
    }

    /// Names each account file that could not be read, on stderr, and says it was skipped.
    static func warn(unreadable: [ExternalUserAgentError]) {
        for error in unreadable {
            Output.errorLine("eua: warning: skipped an account file that cannot be read: \(error.commandLineMessage)")
        }
    }
}
