// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif
import ExternalUserAgentPluginKit
import ExternalUserAgentNet

/// `deliver=desktop`: hands the redirect to the desktop as a browser does with a private-use scheme URL — by
/// running the real `gio open URL` (else `xdg-open URL`), which starts the scheme's registered handler.
enum DesktopHandOff {
    /// How long the opener may take.
    static let deadlineSeconds = 15

    /// Runs the opener on `url` and waits for it (up to ``deadlineSeconds``, or until `stop`); throws
    /// `presentationFailed` when there is none, it cannot start, or it fails.
    static func open(_ url: String, stop: StopSignal) throws {
        let tools: [(String, [String])] = [("gio", ["gio", "open"]), ("xdg-open", ["xdg-open"])]
        guard let (_, command) = tools.first(where: { found($0.0) }) else {
            throw PluginError(
                .presentationFailed,
                "headless agent: deliver=desktop needs gio (libglib2.0-bin) or xdg-open "
                    + "(xdg-utils) on PATH")
        }
        let arguments = command + [url]
        var pid: pid_t = 0
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        argv.append(nil)
        defer { for pointer in argv { free(pointer) } }
        let spawned = posix_spawnp(&pid, arguments[0], nil, nil, argv, environ)
        guard spawned == 0 else {
            throw PluginError(
                .presentationFailed,
                "headless agent: could not run \(arguments[0]): \(String(cString: strerror(spawned)))")
        }
        let deadline = ContinuousClock.now + .seconds(deadlineSeconds)
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if ContinuousClock.now >= deadline || stop.wait(until: .now + .milliseconds(20)) {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                throw PluginError(
                    .presentationFailed,
                    "headless agent: \(arguments[0]) did not finish within \(deadlineSeconds) s")
            }
        }
        guard (status & 0x7f) == 0, (status >> 8) & 0xff == 0 else {
            throw PluginError(
                .presentationFailed,
                "headless agent: \(command.joined(separator: " ")) failed (wait status \(status)); "
                    + "is the scheme registered (a default x-scheme-handler desktop entry) and a flow waiting?")
        }
        PluginHost.log(.debug, "headless agent handed the redirect to the desktop with \(arguments[0])")
    }

    /// Whether `name` is an executable file in a folder of `PATH`.
    private static func found(_ name: String) -> Bool {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { access("\($0)/\(name)", X_OK) == 0 }
    }
}
