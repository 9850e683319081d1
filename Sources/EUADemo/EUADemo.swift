// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ArgumentParser
import EUACommandSupport

/// `eua-demo`: `eua demo` becomes this program (see `DemoProgram`). It holds the testing kit's local
/// authorization server, so that `eua`, which every sign-in starts, does not (Benchmarks/README.md,
/// "Levers"); it names itself `eua` in help.
@main
struct EUADemo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eua",
        abstract: "Sign in with OAuth 2.0 / OpenID Connect through an external user agent (RFC 8252).",
        discussion: """
            This is eua-demo, which runs 'eua demo'; 'eua --help' lists every command. Set EUA_LOG_LEVEL (trace, \
            debug, info, notice, warning, error) to see more on stderr.
            """,
        version: EUAVersion.current,
        subcommands: [DemoCommand.self]
    )
}
