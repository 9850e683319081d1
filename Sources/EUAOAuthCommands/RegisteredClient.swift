// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUACommandSupport
import ExternalUserAgentCore
import ExternalUserAgentOAuth
import Logging
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How `eua login`, `eua refresh` and `eua userinfo` use the client `eua register` saved beside a state file.
enum RegisteredClient {
    /// The registration beside `stateFile`, which must be for `issuer`; a ``CommandFailure`` saying what to
    /// do when there is none or it is for another issuer.
    static func forLogin(issuer: String, stateFile: AuthStateFile) throws -> ClientRegistration {
        let file = ClientRegistrationFile.beside(stateFile)
        let loaded: ClientRegistration?
        do {
            loaded = try file.load()
        } catch let error as ExternalUserAgentError {
            throw CommandFailure("\(error.commandLineReport)")
        }
        guard let registration = loaded else {
            throw CommandFailure(
                "no --client-id given, and no client registered for this state in \(file.path); "
                    + "register one with 'eua register --issuer \(issuer) --redirect-uri http://127.0.0.1/cb' or give --client-id"
            )
        }
        guard registration.issuer == issuer else {
            throw CommandFailure(
                "the client registered in \(file.path) is for \(registration.issuer), not \(issuer); "
                    + "give --client-id, another --state-file, or register with 'eua register --issuer \(issuer)'")
        }
        return registration
    }

    /// The loopback receiver's options for the registration's first loopback redirect URI: its path, and its
    /// port when it names one (a provider may allow any port on loopback, RFC 8252 §7.3).
    static func receiverOptions(_ registration: ClientRegistration) -> [String: String] {
        guard let loopback = registration.redirectURIs.first(where: { $0.scheme?.lowercased() == "http" }) else {
            return [:]
        }
        var options: [String: String] = [:]
        if !loopback.path.isEmpty, loopback.path != "/" { options["path"] = loopback.path }
        if let port = loopback.port { options["port"] = String(port) }
        return options
    }

    /// The secret of the client registered beside `stateFile`, when it is `clientID` (a refresh needs it again).
    static func secret(beside stateFile: AuthStateFile, clientID: String) -> String? {
        guard let registration = try? ClientRegistrationFile.beside(stateFile).load(), registration.clientID == clientID
        else {
            return nil
        }
        return registration.clientSecret
    }
}

extension AuthState {
    /// ``AuthState/load(from:clientSecret:http:logger:)`` with, when no secret is given, the secret of the client
    /// registered beside the file (when it is the state's client).
    /// `clientKeyPath`: the client's private key file (`--client-key`), for `private_key_jwt`.
    /// `registrationHome`: the state file the registration is beside, when not `file` (an account's).
    static func loadUsingRegistration(
        from file: AuthStateFile, registrationHome: AuthStateFile? = nil,
        clientSecret: String?, clientKeyPath: String?,
        http: OAuthHTTP = OAuthHTTP(), logger: Logger
    ) throws -> AuthState {
        let key = try clientKeyPath.map(ClientSigningKey.load(path:))
        if clientSecret != nil {
            return try AuthState.load(
                from: file, clientSecret: clientSecret, clientKey: key, http: http, logger: logger)
        }
        let state = try AuthState.load(from: file, clientKey: key, http: http, logger: logger)
        guard
            let registered = RegisteredClient.secret(beside: registrationHome ?? file, clientID: state.client.clientID)
        else { return state }
        return try AuthState.load(from: file, clientSecret: registered, clientKey: key, http: http, logger: logger)
    }
}
