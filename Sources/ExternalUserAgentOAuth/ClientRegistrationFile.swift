// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentCore

/// Where a dynamically registered client is kept: a private JSON file beside the state file it signs in to
/// (`auth-state.json` → `auth-state.json.client.json`), written atomically with mode 0600. It holds the
/// client secret and registration access token, so reading refuses a file others may read.
public struct ClientRegistrationFile: Sendable, Hashable {
    /// The file's path.
    public let path: String

    /// The registration file at `path`; ``beside(_:)`` gives the usual one for a state file.
    public init(path: String) {
        self.path = path
    }

    /// The registration file beside `stateFile`.
    public static func beside(_ stateFile: AuthStateFile) -> ClientRegistrationFile {
        ClientRegistrationFile(path: stateFile.path + ".client.json")
    }

    /// Saves `registration`, replacing what the file held. Throws `stateFileInvalid` naming the file.
    public func save(_ registration: ClientRegistration) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            try PrivateFile.write(try encoder.encode(registration), to: path)
        } catch let failure as PrivateFile.Failure {
            throw invalid(failure.reason)
        }
    }

    /// The saved registration; `nil` when there is none. Throws `stateFileInvalid` for a corrupt or not private file.
    public func load() throws -> ClientRegistration? {
        let data: Data
        do {
            guard let read = try PrivateFile.read(path) else { return nil }
            data = read
        } catch {
            throw invalid(error.reason)
        }
        do {
            return try JSONDecoder().decode(ClientRegistration.self, from: data)
        } catch let error as InvalidFieldError {
            throw invalid("it is corrupt: \(error) — register the client again", underlying: error)
        } catch {
            throw invalid(
                "it is not a client registration (JSON with issuer and client_id) — register the client again")
        }
    }

    private func invalid(_ reason: String, underlying: (any Error & Sendable)? = nil) -> ExternalUserAgentError {
        ExternalUserAgentError(
            .stateFileInvalid, "client registration file \(path): \(reason)", underlying: underlying,
            remedies: [.registerClient])
    }
}
