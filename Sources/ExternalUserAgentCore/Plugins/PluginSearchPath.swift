// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentSystem

/// Where plugins are looked for, in order; the first plugin with an id wins.
///
/// The standard order: the folder of the running executable, then each folder of
/// `EUA_PLUGIN_PATH` (a colon-separated list), then the user's plugins in `$XDG_DATA_HOME/eua/plugins`
/// (default `~/.local/share/eua/plugins`), then `eua/plugins` in each folder of `$XDG_DATA_DIRS` (default
/// `/usr/local/share:/usr/share`), then the installed plugin folder, `<prefix>/lib/eua/plugins` where the
/// executable is `<prefix>/bin/eua` or `<prefix>/lib/eua/eua` (what `scripts/install` lays out, `bin/eua` a link to it),
/// or the sign-in service's `<prefix>/libexec/eua/eua-signin-service`.
public struct PluginSearchPath: Sendable, Hashable {
    /// The folders, searched in this order.
    public var folders: [String]

    /// A search path of exactly `folders`.
    public init(folders: [String]) {
        self.folders = folders
    }

    /// The standard search path for this process and `environment`.
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> PluginSearchPath
    {
        var folders: [String] = []
        let executableFolder = executableDirectory()
        if let executableFolder { folders.append(executableFolder) }
        if let list = environment["EUA_PLUGIN_PATH"] {
            folders += list.split(separator: ":", omittingEmptySubsequences: true).map(String.init)
        }
        folders += dataFolders(environment: environment).map { $0 + "/eua/plugins" }
        if let executableFolder {
            let installed = installedFolder(executableFolder: executableFolder)
            if !folders.contains(installed) { folders.append(installed) }
        }
        return PluginSearchPath(folders: folders)
    }

    /// `$XDG_DATA_HOME` (default `~/.local/share`), then each folder of `$XDG_DATA_DIRS` (default
    /// `/usr/local/share:/usr/share`), as the XDG Base Directory specification says; relative paths are ignored.
    static func dataFolders(environment: [String: String]) -> [String] {
        var folders: [String] = []
        if let home = environment["XDG_DATA_HOME"], home.hasPrefix("/") {
            folders.append(home)
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            folders.append(home + "/.local/share")
        }
        let dirs = environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share"
        folders += dirs.split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        return folders
    }

    /// `<prefix>/lib/eua/plugins` for an executable in `<prefix>/bin` or in `<prefix>/lib/eua`.
    public static func installedFolder(executableFolder: String) -> String {
        let parent = SmallFiles.folder(of: executableFolder)
        if SmallFiles.lastName(of: executableFolder) == "eua", SmallFiles.lastName(of: parent) == "lib" {
            return joined(executableFolder, "plugins")
        }
        // The sign-in service, `<prefix>/libexec/eua/eua-signin-service`.
        if SmallFiles.lastName(of: executableFolder) == "eua", SmallFiles.lastName(of: parent) == "libexec" {
            return joined(SmallFiles.folder(of: parent), "lib/eua/plugins")
        }
        return joined(parent, "lib/eua/plugins")
    }

    /// The folder holding the running executable (from `/proc/self/exe`, else from the first argument).
    public static func executableDirectory() -> String? {
        if let path = SmallFiles.linkTarget("/proc/self/exe"), path.hasPrefix("/") {
            return SmallFiles.folder(of: path)
        }
        guard let first = CommandLine.arguments.first, !first.isEmpty else { return nil }
        if first.hasPrefix("/") { return SmallFiles.folder(of: first) }
        return SmallFiles.currentFolder().map { SmallFiles.folder(of: joined($0, first)) }
    }

    private static func joined(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }
}
