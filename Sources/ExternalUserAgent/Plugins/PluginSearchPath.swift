#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where plugins are looked for, in order; the first plugin with an id wins.
///
/// The standard order: the folder of the running executable, then each folder of
/// `EUA_PLUGIN_PATH` (a colon-separated list), then the installed plugin folder,
/// `<prefix>/lib/eua/plugins` where the executable is `<prefix>/bin/eua`.
public struct PluginSearchPath: Sendable, Hashable {
    /// The folders, searched in this order.
    public var folders: [String]

    public init(folders: [String]) {
        self.folders = folders
    }

    /// The standard search path for this process and `environment`.
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> PluginSearchPath {
        var folders: [String] = []
        let executableFolder = executableDirectory()
        if let executableFolder { folders.append(executableFolder) }
        if let list = environment["EUA_PLUGIN_PATH"] {
            folders += list.split(separator: ":", omittingEmptySubsequences: true).map(String.init)
        }
        if let executableFolder {
            folders.append(installedFolder(executableFolder: executableFolder))
        }
        return PluginSearchPath(folders: folders)
    }

    /// `<prefix>/lib/eua/plugins` for an executable in `<prefix>/bin`.
    public static func installedFolder(executableFolder: String) -> String {
        let prefix = URL(fileURLWithPath: executableFolder).deletingLastPathComponent()
        return prefix.appendingPathComponent("lib/eua/plugins").path
    }

    /// The folder holding the running executable (from `/proc/self/exe`).
    public static func executableDirectory() -> String? {
        guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            return CommandLine.arguments.first.map {
                URL(fileURLWithPath: $0).deletingLastPathComponent().path
            }
        }
        return URL(fileURLWithPath: path).deletingLastPathComponent().path
    }
}
