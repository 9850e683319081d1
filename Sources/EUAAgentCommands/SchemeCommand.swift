// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ArgumentParser
import EUACommandSupport
import ExternalUserAgentRules

/// `eua scheme`: register a private-use URI scheme with the desktop, and hand its redirects to the waiting flow.
package struct SchemeCommand: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "scheme",
        abstract:
            "Register a private-use URI scheme (com.example.app) for redirects, and hand them to the waiting sign-in.",
        subcommands: [
            SchemeRegisterCommand.self, SchemeUnregisterCommand.self, SchemeStatusCommand.self,
            SchemeHandOffCommand.self,
        ]
    )

    /// `scheme`, checked (RFC 8252 §7.1: a reverse domain name, lower case).
    static func checked(_ scheme: String) throws(ValidationError) -> String {
        if let problem = PrivateUseScheme.problem(with: scheme) { throw ValidationError(problem) }
        return scheme
    }

    /// Says `message` on stderr as `eua scheme <command>: …` and exits with `status`.
    static func fail(_ command: String, _ message: String, exit status: Int32 = 1) -> Never {
        Output.errorLine("eua scheme \(command): \(message)")
        Output.exit(status)
    }
}
