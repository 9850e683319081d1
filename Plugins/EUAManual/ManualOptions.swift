// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentPluginKit

/// The manual agent's options: `paste=auto|true|false` (read a pasted URL from standard input; `auto`
/// does so whenever standard input is open), `ssh-user`, `ssh-host` (for the port-forward hint; default
/// `$USER` and the address from `SSH_CONNECTION`).
struct ManualOptions: Sendable {
    enum Paste: String, Sendable, CaseIterable { case auto, `true`, `false` }

    var paste: Paste = .auto
    var sshUser: String?
    var sshHost: String?

    init(options: [String: String]) throws {
        for (key, value) in options {
            switch key {
            case "paste":
                guard let mode = Paste(rawValue: value) else {
                    throw PluginError.invalidOptions("option paste=\(value) must be auto, true or false")
                }
                paste = mode
            case "ssh-user": sshUser = value
            case "ssh-host": sshHost = value
            default:
                throw PluginError.invalidOptions(
                    "option '\(key)' is unknown to the manual agent; known: paste, ssh-user, ssh-host")
            }
        }
    }
}
