// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ArgumentParser
import EUACommandSupport
import ExternalUserAgentSystem
import ExternalUserAgentRules
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// `eua scheme hand-off URL`: what the desktop runs for a registered scheme; passes the URL to the sign-in
/// waiting on the scheme's socket in `$XDG_RUNTIME_DIR/eua/`. Never prints the URL (it carries a code).
///
/// A redirect that is dropped (no sign-in waiting, refused, no answer) is said on stderr and, since the desktop
/// runs this without a terminal, in a desktop notification when a session bus and a notification server answer.
struct SchemeHandOffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hand-off",
        abstract: "Hand a redirect URL to the sign-in waiting for its scheme (the desktop runs this).",
        discussion: """
            Exit status: 0 the waiting sign-in took the URL; 1 no sign-in is waiting for the scheme, or it \
            refused the URL (wrong state, path or scheme, too long), or it did not answer in time; 64 bad usage.
            """
    )

    @Argument(help: "The redirect URL (com.example.app:/cb?code=…&state=…).")
    var url: String

    func validate() throws {
        guard let scheme = PrivateUseScheme.scheme(of: url) else {
            throw ValidationError("the argument is not a URL with a scheme (com.example.app:/cb?…)")
        }
        if let problem = PrivateUseScheme.problem(with: scheme) { throw ValidationError(problem) }
    }

    func run() throws {
        let scheme = PrivateUseScheme.scheme(of: url) ?? ""
        guard url.utf8.count <= PrivateUseScheme.maximumURLBytes else {
            dropped(
                "the \(scheme): URL is longer than \(PrivateUseScheme.maximumURLBytes) bytes; "
                    + "it was refused and dropped")
        }
        let runtime = ProcessEnvironment.current()["XDG_RUNTIME_DIR"]
        guard let folder = PrivateUseScheme.socketFolder(runtimeDirectory: runtime) else {
            dropped(
                "XDG_RUNTIME_DIR is not set, so the waiting sign-in cannot be found; "
                    + "the \(scheme): redirect was dropped")
        }
        let path = PrivateUseScheme.socketPath(folder: folder, scheme: scheme)
        switch HandOffClient.send(url, to: path) {
        case .taken:
            return
        case .nobodyWaiting:
            dropped(
                "no sign-in is waiting for a \(scheme): redirect (nothing listens at \(path)); "
                    + "the redirect was dropped: start the sign-in again from the app")
        case .refused(let reason):
            dropped("the sign-in waiting for \(scheme): refused the redirect: \(reason)")
        case .failed(let message):
            dropped("\(message); the \(scheme): redirect was dropped")
        }
    }

    /// Says on stderr and in a desktop notification that the redirect was dropped, then exits 1.
    private func dropped(_ message: String) -> Never {
        _ = DesktopNotification.send(
            summary: "Sign-in redirect not delivered", body: message,
            environment: ProcessEnvironment.current())
        SchemeCommand.fail("hand-off", message)
    }
}
