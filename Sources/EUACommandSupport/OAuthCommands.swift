#if canImport(Glibc)
import Glibc
#endif

/// The subcommands that need the OAuth client (and, for `demo`, the testing kit's server).
///
/// They live in programs of their own beside `eua` — `eua-oauth`, and `eua-demo` for `demo` (the local
/// authorization server is not linked into what every sign-in starts): the HTTP, TLS, JWT and crypto code they
/// need would otherwise be linked into, and started with, every `eua agents` and `eua open` — profiling
/// showed that weight (dynamic linking, relocations, Swift protocol-conformance scans over its records)
/// was most of those commands' time. `eua NAME …` replaces itself with `eua-oauth NAME …`.
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

    /// The program that runs them, in the folder of the running `eua-core`. (The `eua` launcher,
    /// Sources/eua/main.c, has the same list of names.)
    package static let programName = "eua-oauth"

    /// The program that runs `demo`.
    package static let demoProgramName = "eua-demo"

    /// The program that runs the command `name`.
    static func program(for name: String) -> String { name == demo.0 ? demoProgramName : programName }

    static var names: Set<String> { [explain.0, login.0, refresh.0, demo.0, doctor.0, userinfo.0, register.0, logout.0,
                                     accounts.0, token.0] }

    /// Replaces this process with `eua-oauth` when `arguments` (argv) name one of its commands, directly or
    /// as `help NAME`; returns otherwise. Exits with 127 and says what to do when `eua-oauth` is missing.
    package static func forwardIfNeeded(_ arguments: [String]) {
        guard arguments.count >= 2 else { return }
        let named = names.contains(arguments[1])
            || (arguments[1] == "help" && arguments.count >= 3 && names.contains(arguments[2]))
        guard named else { return }
        let folder = executableFolder() ?? "."
        let programName = program(for: arguments[1] == "help" ? arguments[2] : arguments[1])
        let program = folder + "/" + programName
        var argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments.dropFirst()).map { strdup($0) }
        argv.append(nil)
        execv(program, argv)
        let reason = String(cString: strerror(errno))
        Output.standardError("eua: '\(arguments[1])' is run by \(program), which could not be started (\(reason)); "
            + "install \(programName) beside eua (swift build puts eua, eua-core, eua-oauth and eua-demo together in "
            + ".build/<configuration>/)\n")
        Output.exit(127)
    }

    /// The folder of the running program (`/proc/self/exe`), so a symlinked `eua` still finds its sibling.
    static func executableFolder() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
