// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentABI
import Logging

/// An ``AuthState`` as the JSON text of a state file, for a store that keeps it elsewhere: the sign-in service
/// (`eua-signin-service`) keeps it in a Secret Service item of its own.
extension AuthState {
    /// The state as a state file holds it (tokens, ID token claims, the DPoP key): a secret, never to be logged.
    package func storedText() throws -> String {
        String(decoding: try AuthStateFile.encoded(contents, indented: false), as: UTF8.self)
    }

    /// A state read back from ``storedText()``, kept in memory only (no file): a refresh changes this value,
    /// and the caller stores ``storedText()`` again. Throws `stateFileInvalid` for text that is not such a state,
    /// naming `place` and never a token.
    package static func restored(
        fromStoredText text: String, place: String, http: OAuthHTTP = OAuthHTTP(),
        logger: Logger = Logger(label: "eua.oauth")
    ) throws -> AuthState {
        let contents = try AuthStateFile(path: place).decode(Data(text.utf8))
        return AuthState(
            configuration: contents.configuration, client: contents.client, scope: contents.scope,
            authorizationResponse: nil, tokenResponse: contents.tokenResponse,
            idTokenClaims: contents.idTokenClaims, identity: contents.identity,
            authorizationError: contents.authorizationError, file: nil, revision: 0, http: http,
            logger: logger, dpopKey: contents.dpopKey, refreshParameters: contents.refreshParameters,
            revokedTokens: contents.revokedTokens)
    }
}
