#if canImport(Glibc)
import Glibc
#endif
import ExternalUserAgentSystem

/// The subcommands that need the OAuth client (and, for `demo`, the testing kit's server): their names and abstracts.
///
/// `demo` lives in a program of its own beside `eua`, `eua-demo`, so that the local authorization server is not
/// linked into what every sign-in starts: `eua demo …` replaces itself with `eua-demo demo …`. (Until session 11 the
/// other OAuth commands were a program of their own too, `eua-oauth`, chosen by a C launcher; since the release
/// commands hold the Swift runtime, one program takes less CPU for every command: Benchmarks/README.md, "Session 11".)
package enum OAuthCommands {
    /// The command name and its one-line abstract, for both programs' help.
    package static let explain = ("explain",
        "Show which user agent would be selected, why each candidate won or lost, and where each setting came from.")
    package static let login = ("login",
        "Sign in: discovery, loopback redirect, the agent, checks, token exchange, ID token validation.")
    package static let refresh = ("refresh", "Refresh the tokens of a state saved by 'eua login', and save them.")
    package static let userinfo = ("userinfo",
        "Show the claims the provider's UserInfo endpoint gives for a state saved by 'eua login'.")
    package static let register = ("register",
        "Register a native client with a provider (OpenID Connect dynamic registration), for 'eua login'.")
    package static let logout = ("logout",
        "Sign out: revoke the tokens, end the provider's session through an agent, forget the saved state.")
    package static let accounts = ("accounts",
        "List the signed-in accounts 'eua login' saved (issuer, client, subject, expiry; never a token).")
    package static let token = ("token",
        "Print a fresh access token for scripts, refreshing and saving first when needed.")
    package static let demo = ("demo",
        "Show a complete sign-in against a local authorization server: no account, browser or network needed.")
    package static let doctor = ("doctor",
        "Tell why sign-in will or will not work here: configuration, agents, platform, loopback, and a provider.")

    /// The program that runs `demo`, in the folder of the running `eua`.
    package static let demoProgramName = "eua-demo"

    /// Replaces this process with `eua-demo` when `arguments` (argv) name `demo`, directly or as `help demo`;
    /// returns otherwise. Exits with 127 and says what to do when `eua-demo` is missing.
    package static func forwardIfNeeded(_ arguments: [String]) {
        guard arguments.count >= 2 else { return }
        let named = arguments[1] == demo.0 || (arguments[1] == "help" && arguments.count >= 3 && arguments[2] == demo.0)
        guard named else { return }
        let folder = executableFolder() ?? "."
        let program = folder + "/" + demoProgramName
        var argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments.dropFirst()).map { strdup($0) }
        argv.append(nil)
        execv(program, argv)
        let reason = String(cString: strerror(errno))
        Output.standardError("eua: '\(arguments[1])' is run by \(program), which could not be started (\(reason)); "
            + "install \(demoProgramName) beside eua (swift build puts eua and eua-demo together in "
            + ".build/<configuration>/; scripts/install puts both in <prefix>/lib/eua)\n")
        Output.exit(127)
    }

    /// The folder of the running program (`/proc/self/exe`), so a symlinked `eua` still finds its sibling.
    static func executableFolder() -> String? {
        SmallFiles.linkTarget("/proc/self/exe").map(SmallFiles.folder(of:))
    }
}
