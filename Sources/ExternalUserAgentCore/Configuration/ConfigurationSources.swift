// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where configuration is read from: the files of each layer and the environment.
///
/// Everything comes in here, so tests can point every layer at a temporary folder and never touch
/// the real `/etc` or `$HOME`. ``standard(environment:managedFile:)`` gives the usual places.
public struct ConfigurationSources: Sendable, Hashable {
    /// The environment variables to read (`EUA_AGENT`, `$BROWSER`, …).
    public var environment: [String: String]
    /// System files, weakest first (the reverse of `$XDG_CONFIG_DIRS`, whose first folder is the most important).
    public var systemFiles: [String]
    /// The user's file, if there is a home to look in.
    public var userFile: String?
    /// The managed file, whose keys no layer can change.
    public var managedFile: String?

    /// Sources from explicit files (tests and tools); ``standard(environment:managedFile:)`` finds the usual ones.
    public init(environment: [String: String], systemFiles: [String], userFile: String?, managedFile: String?) {
        self.environment = environment
        self.systemFiles = systemFiles
        self.userFile = userFile
        self.managedFile = managedFile
    }

    /// The default managed file.
    public static let defaultManagedFile = "/etc/eua/managed.toml"

    /// The usual places for `environment`: system files from `$XDG_CONFIG_DIRS` (default `/etc/xdg`),
    /// the user file from `$XDG_CONFIG_HOME` (default `$HOME/.config`), each as `<dir>/eua/config.toml`;
    /// the managed file is `managedFile`, else `$EUA_MANAGED_CONFIG` (meant for tests), else `/etc/eua/managed.toml`.
    public static func standard(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        managedFile: String? = nil
    ) -> ConfigurationSources {
        let dirs = environment["XDG_CONFIG_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/etc/xdg"
        let system = dirs.split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
            .map { join($0, "eua/config.toml") }
        var userFile: String?
        if let home = environment["XDG_CONFIG_HOME"], home.hasPrefix("/") {
            userFile = join(home, "eua/config.toml")
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            userFile = join(home, ".config/eua/config.toml")
        }
        let managed =
            managedFile
            ?? environment["EUA_MANAGED_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
            ?? defaultManagedFile
        return ConfigurationSources(
            environment: environment, systemFiles: Array(system.reversed()),
            userFile: userFile, managedFile: managed)
    }

    private static func join(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }
}

/// What became of one configuration file.
public struct ConfigurationFileStatus: Sendable, Hashable {
    /// Whether the file was read.
    public enum Status: Sendable, Hashable, CustomStringConvertible {
        /// Read; its settings took part.
        case loaded
        /// Not there, which is fine.
        case notFound
        /// Not read, and why (another user could change it, not a regular file, unreadable); a managed file
        /// is never left at this: loading throws instead.
        case refused(String)

        public var description: String {
            switch self {
            case .loaded: "loaded"
            case .notFound: "not found"
            case .refused(let why): "refused: \(why)"
            }
        }
    }

    /// The file.
    public var path: String
    /// Its layer.
    public var layer: ConfigurationLayer
    /// Whether it was read, missing, refused or broken.
    public var status: Status
}
