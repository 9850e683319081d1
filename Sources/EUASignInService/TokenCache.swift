// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentOAuth

/// The accounts in use, in memory: every caller of one account shares one ``AuthState`` (so one refresh serves
/// concurrent calls, and a call needs no keyring round trip). Keyed by owner and account id.
actor TokenCache {
    private var states: [String: AuthState] = [:]

    func get(app: String, account: String) -> AuthState? { states[key(app, account)] }

    /// Keeps `state` unless one is kept already for the account; returns the one kept.
    @discardableResult
    func put(_ state: AuthState, app: String, account: String) -> AuthState {
        if let kept = states[key(app, account)] { return kept }
        states[key(app, account)] = state
        return state
    }

    func remove(app: String, account: String) { states[key(app, account)] = nil }

    private func key(_ app: String, _ account: String) -> String { app + "\n" + account }
}
