// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore
import ExternalUserAgentOAuth

/// The app's sign-in: the agent chosen by the configuration (system, user and managed files, the environment)
/// among the plugins built beside the app, and the whole flow in one call.
public enum AppSignIn {
    /// Signs in to `issuer` as `clientID` and returns who signed in; without `catalog`, with the plugins loaded now.
    public static func run(
        issuer: String, clientID: String, code: CodeConfiguration = CodeConfiguration(),
        catalog: PluginCatalog? = nil
    ) async throws -> String {
        let catalog = if let catalog { catalog } else { await PluginLoader().load() }
        let flow = SignInFlow(
            issuer: issuer, client: ClientCredentials(clientID: clientID), scopes: ["openid", "email"],
            timeout: .seconds(60), candidates: AgentSelection.candidates(catalog: catalog),
            configuration: try Configuration.load(code: code), receiver: .plugin(in: catalog))
        let state = try await flow.run()
        return await state.idTokenClaims?.displayName ?? "someone"
    }
}
