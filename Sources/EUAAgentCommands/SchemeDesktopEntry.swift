// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentRules
#if canImport(Glibc)
import Glibc
#endif

/// The desktop entry that makes the desktop hand a scheme's URLs to `eua scheme hand-off`:
/// `$XDG_DATA_HOME/applications/eua-scheme-<scheme>.desktop` with `MimeType=x-scheme-handler/<scheme>;`.
struct SchemeDesktopEntry {
    let scheme: String
    /// The command line; ` %u` is added unless it already holds `%u` or `%U`.
    let command: String

    /// The `Exec` value: the command with the URL's field code.
    var exec: String { command.contains("%u") || command.contains("%U") ? command : command + " %u" }

    /// The folder desktop entries of this user go to: `$XDG_DATA_HOME/applications`, else `~/.local/share/applications`.
    static func applicationsFolder(environment: [String: String]) throws(SchemeCommandError) -> String {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/applications" }
        if let home = environment["HOME"], home.hasPrefix("/") { return home + "/.local/share/applications" }
        throw SchemeCommandError(
            "neither XDG_DATA_HOME nor HOME is an absolute path, so there is no applications folder")
    }

    /// The file's text.
    var text: String {
        """
        [Desktop Entry]
        Type=Application
        Name=Sign-in redirect for \(scheme) (eua)
        Comment=Hands \(scheme): redirects to the sign-in waiting for them
        Exec=\(exec)
        MimeType=\(PrivateUseScheme.mimeType(scheme: scheme));
        NoDisplay=true
        Terminal=false
        X-EUA-Scheme=\(scheme)

        """
    }

    /// `eua scheme hand-off` as the desktop should run it: the `eua` launcher beside this program or in
    /// `<prefix>/bin`, else this program itself, quoted as the Desktop Entry Specification asks.
    static func handOffCommand() throws(SchemeCommandError) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else {
            throw SchemeCommandError("the path of this program is unknown (/proc/self/exe); give --exec")
        }
        let me = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let folder = String(me[..<(me.lastIndex(of: "/") ?? me.startIndex)])
        let candidates = [folder + "/eua", folder + "/../../bin/eua"]
        let program = candidates.first { access($0, X_OK) == 0 }.map(canonical) ?? me
        return try quoted(program) + " scheme hand-off"
    }

    /// `path` as one Exec argument: as is when plain, else in double quotes; characters the two levels of
    /// escaping make error-prone are refused.
    static func quoted(_ path: String) throws(SchemeCommandError) -> String {
        guard !path.contains(where: { "\"`$\\%\n\r\t".contains($0) }) else {
            throw SchemeCommandError(
                "the program path \(path) holds a character a desktop entry cannot carry safely; "
                    + "install eua elsewhere or give --exec")
        }
        return path.contains(where: { " '<>~|&;*?#()".contains($0) }) ? "\"\(path)\"" : path
    }

    private static func canonical(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
