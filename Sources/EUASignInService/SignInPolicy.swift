// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore

/// What the host's configuration (its `[signin]` table, the managed layer over the others, as `eua explain` shows)
/// lets a caller do: use the service at all, sign in to an issuer, use a client id.
struct SignInPolicy: Sendable {
    let configuration: Configuration

    /// Refuses (`NotAllowed`) an app the configuration keeps from the service.
    func checkCaller(_ identity: AppIdentity) throws(ServiceError) {
        let key: ConfigurationKey = identity.isSandboxed ? .signinSandboxedApps : .signinHostApps
        guard configuration[key]?.value.boolValue ?? true else {
            throw .notAllowed(
                "the sign-in service is closed to \(identity.isSandboxed ? "sandboxed" : "unsandboxed") "
                    + "apps such as \(identity.appID) by \(origin(key)); ask the administrator, or sign in another way")
        }
    }

    /// Refuses (`NotAllowed`) an issuer outside `signin.issuers`, and a client id bound to other apps.
    func checkClient(issuer: String, clientID: String, app: String) throws(ServiceError) {
        if let issuers = configuration[.signinIssuers]?.value.stringList, !issuers.contains(issuer) {
            throw .notAllowed(
                "the issuer \(issuer) is not one of the issuers the sign-in service may sign in to "
                    + "(signin.issuers, \(origin(.signinIssuers))); ask the administrator to add it")
        }
        let key = ConfigurationKey.signinClient(issuer: issuer, client: clientID)
        if let apps = configuration[key]?.value.stringList, !apps.contains(app) {
            throw .notAllowed(
                "the client id \(clientID) at \(issuer) is bound to other apps than \(app) (\(key), "
                    + "\(origin(key))); use the app's own client id")
        }
    }

    private func origin(_ key: ConfigurationKey) -> String {
        configuration[key].map { "\($0.origin)" } ?? "the configuration"
    }
}
