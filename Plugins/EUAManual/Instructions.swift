// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import FoundationEssentials

/// What the person is told, by situation: on this machine with no browser, over SSH (with the exact
/// port-forward line), and how to paste the final URL when the redirect cannot reach us.
enum Instructions {
    struct Situation {
        var ssh: Bool
        var sshUser: String?
        var sshHost: String?
        var loopbackPort: Int?
        /// The address the receiver listens on, as `ssh -L` writes it: `127.0.0.1`, or `[::1]` for an IPv6 redirect.
        var loopbackHost = "127.0.0.1"
        var paste: Bool
        /// Whether the request ends a session (an end-session request) rather than starting one.
        var signOut = false
    }

    static func situation(
        environment: [String: String], options: ManualOptions, redirectURI: String, paste: Bool,
        signOut: Bool = false
    ) -> Situation {
        let connection = environment["SSH_CONNECTION"]?.split(separator: " ").map(String.init) ?? []
        let ssh =
            !connection.isEmpty || !(environment["SSH_TTY"] ?? "").isEmpty || !(environment["SSH_CLIENT"] ?? "").isEmpty
        let components = URLComponents(string: redirectURI)
        let host = components?.host ?? ""
        let loopback = components?.scheme == "http" && ["127.0.0.1", "::1", "[::1]", "localhost"].contains(host)
        return Situation(
            ssh: ssh, sshUser: options.sshUser ?? environment["USER"] ?? environment["LOGNAME"],
            sshHost: options.sshHost ?? (connection.count >= 3 ? connection[2] : nil) ?? environment["HOSTNAME"],
            loopbackPort: loopback ? components?.port : nil,
            loopbackHost: ["::1", "[::1]"].contains(host) ? "[::1]" : "127.0.0.1", paste: paste, signOut: signOut)
    }

    static func text(url: String, situation: Situation) -> String {
        let action = situation.signOut ? "sign out of the provider" : "sign in"
        var lines = ["", "To \(action), open this URL in a browser:", "", "    \(url)", ""]
        if situation.ssh, let port = situation.loopbackPort {
            let target = [situation.sshUser, situation.sshHost].compactMap { $0 }.joined(separator: "@")
            lines += [
                "You are on SSH. So that the browser on your own computer can reach this machine after you "
                    + (situation.signOut ? "sign out," : "sign in,"),
                "run this on your computer first (and keep it open):",
                "",
                "    ssh -L \(port):\(situation.loopbackHost):\(port) \(target.isEmpty ? "user@host" : target)",
                "",
            ]
        } else if !situation.ssh {
            lines += ["Use any browser on this machine.", ""]
        }
        if situation.paste {
            lines += [
                "If the browser ends on a page that cannot be reached, copy that page's full address from the",
                "address bar and paste it here, then press Enter:",
            ]
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
