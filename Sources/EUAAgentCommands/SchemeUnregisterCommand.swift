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

/// `eua scheme unregister <scheme>`: removes eua's desktop entry and, when it is the default, the association.
struct SchemeUnregisterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unregister",
        abstract: "Remove eua's handler for a private-use scheme (idempotent; another application's default is kept)."
    )

    @Argument(help: "The scheme (com.example.app).")
    var scheme: String

    func validate() throws {
        _ = try SchemeCommand.checked(scheme)
    }

    func run() throws {
        let environment = ProcessEnvironment.current()
        do {
            let folder = try SchemeDesktopEntry.applicationsFolder(environment: environment)
            let desktopID = PrivateUseScheme.desktopID(scheme: scheme)
            let mimeType = PrivateUseScheme.mimeType(scheme: scheme)
            let path = folder + "/" + desktopID
            let gio = try GIOMimeDefaults()
            let wasDefault = gio.defaultApplication(for: mimeType)?.id == desktopID
            if wasDefault { gio.resetAssociations(for: mimeType) }
            let existed = unlink(path) == 0
            if existed, let tool = SchemeFiles.which("update-desktop-database", path: environment["PATH"]) {
                _ = SchemeFiles.run([tool, folder], seconds: 10)
            }
            Output.line(
                existed || wasDefault
                    ? "unregistered \(scheme): removed \(path)\(wasDefault ? " and its default for \(mimeType)" : "")"
                    : "\(scheme) was not registered by eua (no \(path)); nothing to do")
        } catch {
            SchemeCommand.fail("unregister", "\(error)")
        }
    }
}
