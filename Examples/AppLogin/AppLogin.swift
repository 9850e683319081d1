import ExternalUserAgent
import ExternalUserAgentOAuth

/// An app's own sign-in code, as an app would write it: the code its tests run against a real
/// (local) authorization server in `Examples/AppLoginTests`.
public enum AppLogin {
    /// Signs in to `issuer` as the app `clientID` with `agent`, catching the redirect with `receiver`,
    /// and returns who signed in.
    public static func signIn(issuer: String, clientID: String, agent: any ExternalUserAgent,
                              receiver: any RedirectReceiver) async throws -> String {
        let configuration = try await Discovery().configuration(issuer: issuer)
        let signIn = SignIn(configuration: configuration, client: ClientCredentials(clientID: clientID),
                            scopes: ["openid", "email"], timeout: .seconds(30))
        let state = try await signIn.run(agent: agent, receiver: receiver)
        return await state.idTokenClaims?.displayName ?? "someone"
    }
}
