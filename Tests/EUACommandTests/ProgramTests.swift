// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import Foundation
import Testing

/// `eua` runs every command but `demo`, which it hands to `eua-demo` beside it.
@Suite("eua and eua-demo", .onOwnThreads, .timeLimit(.minutes(1)))
struct ProgramTests {
    /// The commands of the OAuth client, which were a program of their own (`eua-oauth`) before.
    static let oauthCommands = [
        "explain", "login", "refresh", "doctor", "userinfo", "register", "logout", "accounts", "token",
    ]

    @Test("eua --help lists every command, demo included")
    func helpListsAll() throws {
        let result = try ProcessRunner.run(try TestPaths.product("eua"), ["--help"])
        #expect(result.status == 0)
        for name in ["agents", "capabilities", "open", "receive", "demo"] + Self.oauthCommands {
            #expect(result.stdout.contains("\n  \(name) "), "\(name) in:\n\(result.stdout)")
        }
    }

    @Test("eua login --help and eua help login show login's own options, named eua login")
    func commandHelp() throws {
        for arguments in [["login", "--help"], ["help", "login"]] {
            let result = try ProcessRunner.run(try TestPaths.product("eua"), arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.stdout.contains("USAGE: eua login"), "\(arguments): \(result.stdout)")
            #expect(result.stdout.contains("--issuer"), "\(arguments)")
        }
    }

    @Test("every OAuth command runs in eua itself, with its own help")
    func oauthCommandsInEUA() throws {
        for name in Self.oauthCommands {
            let result = try ProcessRunner.run(try TestPaths.product("eua"), [name, "--help"])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            #expect(result.stdout.contains("USAGE: eua \(name)"), "\(name): \(result.stdout)")
        }
    }

    @Test("eua demo and eua help demo become eua-demo")
    func demoForwarded() throws {
        for arguments in [["demo", "--help"], ["help", "demo"]] {
            let result = try ProcessRunner.run(try TestPaths.product("eua"), arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.stdout.contains("USAGE: eua demo"), "\(arguments): \(result.stdout)")
            #expect(
                result.stdout.contains("This is eua-demo") || !result.stdout.contains("SUBCOMMANDS"), "\(arguments)")
        }
    }

    @Test("eua demo with no eua-demo beside it: exit 127 and what to do; the other commands still run")
    func missingDemoProgram() throws {
        let folder = try TemporaryFolder()
        let eua = folder.url.appendingPathComponent("eua")
        try FileManager.default.copyItem(at: try TestPaths.product("eua"), to: eua)
        let real = folder.url.resolvingSymlinksInPath().path
        for arguments in [["demo"], ["help", "demo"]] {
            let result = try ProcessRunner.run(eua, arguments)
            #expect(result.status == 127, "\(arguments)")
            #expect(
                result.stderr.contains("is run by \(real)/eua-demo, which could not be started"), "\(result.stderr)")
            #expect(result.stderr.contains("install eua-demo beside eua"), "\(result.stderr)")
        }
        let agents = try ProcessRunner.run(eua, ["agents", "--json"], environment: ["EUA_PLUGIN_PATH": ""])
        #expect(agents.status == 0, "the other commands still work: \(agents.stderr)")
        let help = try ProcessRunner.run(eua, ["help", "login"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: eua login"), "\(help.stderr)")
    }
}
