// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import FoundationEssentials
import ExternalUserAgentPluginKit

/// Builds the callback URL an authorization server would redirect to.
enum Redirect {
    static func callbackURL(script: HeadlessScript, authorizationURL: String, redirectURI: String) throws -> URL {
        guard var components = URLComponents(string: redirectURI) else {
            throw PluginError(.presentationFailed, "headless agent: the redirect URI is not a URL")
        }
        let authorization = URLComponents(string: authorizationURL)
        let state = authorization?.queryItems?.first { $0.name == "state" }?.value
        var items = components.queryItems ?? []
        let given = Dictionary(script.parameters.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
        // The order a server would use: code (or error), state, then the rest.
        switch script.mode {
        case .error:
            items.append(URLQueryItem(name: "error", value: script.error))
            if let description = script.errorDescription {
                items.append(URLQueryItem(name: "error_description", value: description))
            }
        default:
            items.append(URLQueryItem(name: "code", value: given["code"] ?? randomCode()))
        }
        if let state = given["state"] ?? state {
            items.append(URLQueryItem(name: "state", value: state))
        }
        items += script.parameters.filter { $0.name != "code" && $0.name != "state" }
            .map { URLQueryItem(name: $0.name, value: $0.value) }
        components.queryItems = items
        guard let url = components.url else {
            throw PluginError(.presentationFailed, "headless agent: could not build the callback URL")
        }
        return url
    }

    private static func randomCode() -> String {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        return String((0..<32).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
    }
}
