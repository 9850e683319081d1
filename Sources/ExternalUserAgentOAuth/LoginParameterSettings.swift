// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore

/// The request parameters a configuration's `[login]` table sets (`prompt`, `login-hint`, `max-age`, `acr-values`,
/// `ui-locales`, `resource`), under the ones given in code.
enum LoginParameterSettings {
    /// `given`, with each property it leaves unset taken from `configuration`; a value the typed rules refuse
    /// throws `configurationInvalid` naming the key and where it was written (file:line).
    static func merged(_ given: AuthorizationParameters, _ configuration: Configuration) throws
        -> AuthorizationParameters
    {
        var parameters = given
        if parameters.prompt.isEmpty, let (text, origin) = text(.loginPrompt, configuration) {
            parameters.prompt = try checked(.loginPrompt, origin) { try Prompt.parse(text, source: "login.prompt") }
        }
        if parameters.loginHint == nil, let (text, _) = text(.loginHint, configuration) { parameters.loginHint = text }
        if parameters.maxAge == nil, case .integer(let seconds)? = configuration[.loginMaxAge]?.value {
            parameters.maxAge = seconds
        }
        if parameters.acrValues.isEmpty, let (text, _) = text(.loginACRValues, configuration) {
            parameters.acrValues = text.split(separator: " ").map(String.init)
        }
        if parameters.uiLocales.isEmpty, let (text, _) = text(.loginUILocales, configuration) {
            parameters.uiLocales = text.split(separator: " ").map(String.init)
        }
        if parameters.resources.isEmpty, let setting = configuration[.loginResource],
            case .list(let values) = setting.value
        {
            let resources = values.compactMap { value -> String? in
                if case .string(let text) = value { return text }
                return nil
            }
            for resource in resources {
                try checked(.loginResource, setting.origin) { try AuthorizationParameters.checkResource(resource) }
            }
            parameters.resources = resources
        }
        return parameters
    }

    /// A boolean `[login]` key (`par`, `dpop`), when a layer sets it.
    static func flag(_ key: ConfigurationKey, _ configuration: Configuration) -> Bool? {
        guard case .bool(let value)? = configuration[key]?.value else { return nil }
        return value
    }

    private static func text(_ key: ConfigurationKey, _ configuration: Configuration) -> (String, ConfigurationOrigin)?
    {
        guard let setting = configuration[key], case .string(let text) = setting.value else { return nil }
        return (text, setting.origin)
    }

    private static func checked<T>(_ key: ConfigurationKey, _ origin: ConfigurationOrigin, _ body: () throws -> T)
        throws -> T
    {
        do {
            return try body()
        } catch let error as ExternalUserAgentError {
            throw ExternalUserAgentError(.configurationInvalid, "\(origin.location): key '\(key)': \(error.message)")
        }
    }
}
