// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ArgumentParser
import EUACommandSupport
import ExternalUserAgentCore
import ExternalUserAgentOAuth
import ExternalUserAgentSystem
import Logging
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `eua register`: registers a native client dynamically (RFC 7591, OpenID Connect Registration) and keeps
/// it beside the state file, so that `eua login --issuer …` without `--client-id` uses it.
package struct RegisterCommand: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "register",
        abstract: "Register a native client with a provider (OpenID Connect dynamic registration), for 'eua login'.",
        discussion: """
            The client is registered as application_type native, for the code grant with refresh tokens. Each \
            redirect URI is loopback http (http://127.0.0.1/cb: 'eua login' listens on that path, on any port \
            unless the URI names one) or a private-use scheme (com.example.app:/cb). The registration, client \
            secret and registration access token included, is saved with mode 0600 to <state file>.client.json; \
            the secrets are never printed. An initial access token may also come from EUA_INITIAL_ACCESS_TOKEN.
            """
    )

    @Option(help: "The issuer identifier of the authorization server.")
    var issuer: String

    @Option(
        name: .customLong("redirect-uri"),
        help: ArgumentHelp("A redirect URI to register (repeatable).", valueName: "uri"))
    var redirectURIs: [String] = []

    @Option(
        help:
            "How the client authenticates at the token endpoint: none (a public client), client_secret_basic, client_secret_post, client_secret_jwt or private_key_jwt (with --client-key)."
    )
    var clientAuth: String = "none"

    @Option(
        help: ArgumentHelp(
            "The client's private key file (JWK or PEM); its public half is registered as the client's jwks, for private_key_jwt and request objects.",
            valueName: "file"))
    var clientKey: String?

    @Option(
        help: ArgumentHelp(
            "Ask for signed UserInfo responses with this algorithm (userinfo_signed_response_alg).", valueName: "alg"))
    var userinfoAlg: String?

    @Option(
        name: .customLong("contact"),
        help: ArgumentHelp(
            "An e-mail address of someone responsible for the client (repeatable; some providers require one).",
            valueName: "email"))
    var contacts: [String] = []

    @Option(help: "A name the provider shows people on its consent page.")
    var clientName: String?

    @Option(help: ArgumentHelp("The ID token algorithm to register (id_token_signed_response_alg).", valueName: "alg"))
    var idTokenAlg: String?

    @Option(help: "The scopes the client will ask for, space-separated, when the provider wants them at registration.")
    var scope: String?

    @Option(
        help:
            "The state file the client is for; the registration is saved beside it (default: $XDG_STATE_HOME/eua/auth-state.json)."
    )
    var stateFile: String?

    @Flag(help: "Print the client id and where it was saved as one JSON object (never a secret).")
    var json = false

    package func validate() throws {
        guard !redirectURIs.isEmpty else { throw ValidationError("give at least one --redirect-uri") }
        guard ClientCredentials.AuthenticationMethod(rawValue: clientAuth) != nil else {
            throw ValidationError(
                "--client-auth must be none, client_secret_basic, client_secret_post, client_secret_jwt or private_key_jwt"
            )
        }
        if clientAuth == "private_key_jwt", clientKey == nil {
            throw ValidationError("--client-auth private_key_jwt needs the client's key: give --client-key FILE")
        }
        for (flag, value) in [("--id-token-alg", idTokenAlg), ("--userinfo-alg", userinfoAlg)] {
            guard let value else { continue }
            do { _ = try IDTokenAlgorithm(value) } catch let error as ExternalUserAgentError {
                throw ValidationError("\(flag): \(error.commandLineMessage)")
            }
        }
        for uri in redirectURIs where URL(string: uri) == nil {
            throw ValidationError("--redirect-uri '\(uri)' is not a URI")
        }
    }

    package func run() throws {
        let environment = ProcessEnvironment.current()
        CommandLogging.bootstrap(environment: environment)
        let logger = Logger(label: "eua.register")
        let file = ClientRegistrationFile.beside(
            stateFile.map(AuthStateFile.init(path:))
                ?? AuthStateFile.standard(environment: environment))
        var asked: ClientRegistrationRequest
        do {
            asked = try ClientRegistrationRequest(
                redirectURIs: redirectURIs.compactMap(URL.init(string:)),
                tokenEndpointAuthMethod: ClientCredentials.AuthenticationMethod(rawValue: clientAuth) ?? .none,
                clientName: clientName, idTokenAlgorithm: try idTokenAlg.map(IDTokenAlgorithm.init), scope: scope,
                initialAccessToken: environment["EUA_INITIAL_ACCESS_TOKEN"].flatMap { $0.isEmpty ? nil : $0 })
            asked.signingKey = try clientKey.map(ClientSigningKey.load(path:))
            asked.userInfoAlgorithm = try userinfoAlg.map(IDTokenAlgorithm.init)
            asked.contacts = contacts
        } catch let error as ExternalUserAgentError {
            throw CommandFailure("\(error.commandLineReport)")
        }
        let (issuer, request) = (self.issuer, asked)
        let registration = try Blocking.run {
            try await CommandFailure.reporting {
                let service = try await Discovery(logger: logger).configuration(issuer: issuer)
                let registration = try await ClientRegistrar(logger: logger).register(request, at: service)
                try file.save(registration)
                return registration
            }
        }
        if json {
            Output.json(
                JSONValue.object([
                    "issuer": .string(registration.issuer), "client_id": .string(registration.clientID),
                    "token_endpoint_auth_method": .string(registration.tokenEndpointAuthMethod.rawValue),
                    "registration_file": .string(file.path),
                ]).jsonText)
        } else {
            Output.line("Registered client \(registration.clientID) at \(registration.issuer).")
            Output.line("Saved to \(file.path); 'eua login --issuer \(registration.issuer)' uses it.")
        }
    }
}
