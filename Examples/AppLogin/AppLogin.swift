// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore
import ExternalUserAgentOAuth

/// An app's own sign-in code, as an app would write it: the code its tests run against a real
/// (local) authorization server in `Examples/AppLoginTests`.
public enum AppLogin {
    /// Signs in to `issuer` as the app `clientID`, the way the configuration (with `code`, the app's own
    /// settings, over it) chooses among `catalog`'s agents — a browser, the device grant or the manual
    /// agent — and returns who signed in. Without `catalog`, the installed plugins are loaded (off Swift's cooperative
    /// pool: loading waits for each plugin with a deadline).
    public static func signIn(
        issuer: String, clientID: String, catalog: PluginCatalog? = nil,
        code: CodeConfiguration = CodeConfiguration()
    ) async throws -> String {
        let catalog = if let catalog { catalog } else { await PluginLoader().load() }
        let flow = SignInFlow(
            issuer: issuer, client: ClientCredentials(clientID: clientID), scopes: ["openid", "email"],
            timeout: .seconds(30), candidates: AgentSelection.candidates(catalog: catalog),
            configuration: try Configuration.load(code: code), receiver: .plugin(in: catalog))
        return try await flow.run().idTokenClaims?.displayName ?? "someone"
    }
}
