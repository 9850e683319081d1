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

/// `eua scheme register <scheme>`: the desktop entry and the default handler for `x-scheme-handler/<scheme>`.
struct SchemeRegisterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register",
        abstract: "Make 'eua scheme hand-off' the desktop's handler for a private-use scheme (idempotent).",
        discussion: """
            Writes eua-scheme-<scheme>.desktop in $XDG_DATA_HOME/applications, makes it the default for \
            x-scheme-handler/<scheme> through GIO, and updates the desktop database when \
            update-desktop-database is installed. A scheme another application is the default for is left \
            alone unless --force is given. Exit status: 0 registered, 1 refused or failed, 64 bad usage.
            """
    )

    @Argument(help: "The scheme: a reverse domain name you control, lower case (com.example.app).")
    var scheme: String

    @Option(help: "The command the desktop runs with the URL (default: this eua's 'scheme hand-off').")
    var exec: String?

    @Flag(help: "Take the scheme even when another application is its default.")
    var force = false

    func validate() throws {
        _ = try SchemeCommand.checked(scheme)
        if let exec, exec.isEmpty || exec.contains(where: { $0 == "\n" || $0 == "\r" }) {
            throw ValidationError("--exec must be one non-empty line")
        }
    }

    func run() throws {
        let environment = ProcessEnvironment.current()
        do {
            Output.line(try register(environment: environment))
        } catch {
            SchemeCommand.fail("register", "\(error)")
        }
    }

    private func register(environment: [String: String]) throws(SchemeCommandError) -> String {
        let folder = try SchemeDesktopEntry.applicationsFolder(environment: environment)
        let desktopID = PrivateUseScheme.desktopID(scheme: scheme)
        let mimeType = PrivateUseScheme.mimeType(scheme: scheme)
        let path = folder + "/" + desktopID
        let command: String
        if let exec {
            try Self.checkProgram(of: exec, path: environment["PATH"])
            command = exec
        } else {
            command = try SchemeDesktopEntry.handOffCommand()
        }
        let entry = SchemeDesktopEntry(scheme: scheme, command: command)
        let previous = SchemeFiles.read(path)
        try SchemeFiles.makeFolders(folder)
        if previous != entry.text {
            try SchemeFiles.write(entry.text, to: path)
            updateDesktopDatabase(folder: folder, environment: environment)
        }
        let gio = try GIOMimeDefaults()
        let owner = gio.defaultApplication(for: mimeType)
        if let owner, owner.id != desktopID, !force {
            if let previous {
                if previous != entry.text { try SchemeFiles.write(previous, to: path) }
            } else {
                unlink(path)
            }
            updateDesktopDatabase(folder: folder, environment: environment)
            throw SchemeCommandError(
                "\(scheme) is handled by another application, \(owner.name) (\(owner.id)); it was left "
                    + "alone. Choose another scheme, or run 'eua scheme register \(scheme) --force' to take it over")
        }
        let unchanged = previous == entry.text && owner?.id == desktopID
        try gio.setDefault(desktopID: desktopID, for: mimeType)
        let taken = owner.map { $0.id != desktopID ? "; taken over from \($0.name) (\($0.id))" : "" } ?? ""
        return unchanged
            ? "\(scheme) is already registered: \(path) runs '\(entry.exec)'"
            : "registered \(scheme): \(path) runs '\(entry.exec)' and is the default for \(mimeType)\(taken)"
    }

    /// Refuses `--exec` whose program cannot be run: the desktop (GIO) ignores such an entry.
    private static func checkProgram(of exec: String, path: String?) throws(SchemeCommandError) {
        let program = exec.hasPrefix("\"") ? exec.dropFirst().prefix { $0 != "\"" } : exec.prefix { $0 != " " }
        let found =
            program.contains("/")
            ? access(String(program), X_OK) == 0
            : SchemeFiles.which(String(program), path: path) != nil
        guard found else {
            throw SchemeCommandError(
                "the program '\(program)' of --exec does not exist or cannot be run (nor found in PATH); "
                    + "the desktop ignores an entry whose program is missing: give a full path to an executable")
        }
    }

    private func updateDesktopDatabase(folder: String, environment: [String: String]) {
        guard let tool = SchemeFiles.which("update-desktop-database", path: environment["PATH"]) else { return }
        _ = SchemeFiles.run([tool, folder], seconds: 10)
    }
}
