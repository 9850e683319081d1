// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif
import ExternalUserAgentCore

/// `eua demo` and the program that runs it, `eua-demo`, beside `eua`: the testing kit's local authorization server
/// is not linked into what every sign-in starts, and `eua demo …` replaces itself with `eua-demo demo …`. The other
/// commands are one program: it takes less CPU for every command than a launcher choosing among several
/// (Benchmarks/README.md).
package enum DemoProgram {
    /// The command name and its one-line abstract, for the help of both programs.
    package static let command = (
        "demo",
        "Show a complete sign-in against a local authorization server: no account, browser or network needed."
    )

    /// The program that runs `demo`, in the folder of the running `eua`.
    package static let programName = "eua-demo"

    /// Replaces this process with `eua-demo` when `arguments` (argv) name `demo`, directly or as `help demo`;
    /// returns otherwise. Exits with 127 and says what to do when `eua-demo` is missing.
    package static func forwardIfNeeded(_ arguments: [String]) {
        guard arguments.count >= 2 else { return }
        let named =
            arguments[1] == command.0 || (arguments[1] == "help" && arguments.count >= 3 && arguments[2] == command.0)
        guard named else { return }
        // The running program's real folder (`/proc/self/exe`), so a symlinked `eua` still finds its sibling.
        let folder = PluginSearchPath.executableDirectory() ?? "."
        let program = folder + "/" + programName
        var argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments.dropFirst()).map { strdup($0) }
        argv.append(nil)
        execv(program, argv)
        let reason = String(cString: strerror(errno))
        Output.standardError(
            "eua: '\(arguments[1])' is run by \(program), which could not be started (\(reason)); "
                + "install \(programName) beside eua (swift build puts eua and eua-demo together in "
                + ".build/<configuration>/; scripts/install puts both in <prefix>/lib/eua)\n")
        Output.exit(127)
    }
}
