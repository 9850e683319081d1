// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Facts about this machine that decide which agents can work: gathered once, from the environment
/// and a few well-known files (no subprocesses).
public struct PlatformFacts: Sendable, Codable, Equatable {
    /// `x11`, `wayland`, `wayland+x11` or `none`.
    public var display: String
    /// Whether this is an SSH session (`SSH_CONNECTION`, `SSH_CLIENT` or `SSH_TTY`).
    public var ssh: Bool
    /// `flatpak`, `snap`, or nil outside a sandbox.
    public var sandbox: String?
    /// Whether links go through the `org.freedesktop.portal.OpenURI` portal (inside a sandbox).
    public var portal: Bool
    /// Whether this is Windows Subsystem for Linux.
    public var wsl: Bool
    /// `docker`, `podman`, the `container` variable's value, or nil.
    public var container: String?

    enum CodingKeys: String, CodingKey {
        case display, ssh, sandbox, portal, wsl, container
    }

    /// Reads the facts. `environment` and `files` are parameters so tests can describe any machine.
    public static func gather(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        files: FileProbe = .system
    ) -> PlatformFacts {
        let x11 = !(environment["DISPLAY"] ?? "").isEmpty
        let wayland = !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
        let display =
            switch (wayland, x11) {
            case (true, true): "wayland+x11"
            case (true, false): "wayland"
            case (false, true): "x11"
            case (false, false): "none"
            }
        let ssh = ["SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY"].contains { !(environment[$0] ?? "").isEmpty }
        let sandbox: String? =
            if files.exists(environment["EUA_FLATPAK_INFO"] ?? "/.flatpak-info") {
                "flatpak"
            } else if environment["SNAP"] != nil { "snap" } else { nil }
        let wsl =
            environment["WSL_DISTRO_NAME"] != nil || files.exists("/proc/sys/fs/binfmt_misc/WSLInterop")
            || (files.read("/proc/version")?.lowercased().contains("microsoft") ?? false)
        let container: String? =
            if files.exists("/.dockerenv") { "docker" } else if files.exists("/run/.containerenv") {
                "podman"
            } else if let value = environment["container"], !value.isEmpty { value } else { nil }
        return PlatformFacts(
            display: display, ssh: ssh, sandbox: sandbox, portal: sandbox != nil, wsl: wsl,
            container: container)
    }
}

/// How facts are read from files; `.system` reads the real ones.
public struct FileProbe: Sendable {
    /// Whether a path exists.
    public var exists: @Sendable (String) -> Bool
    /// A small file's text, or `nil`.
    public var read: @Sendable (String) -> String?

    /// A probe with the given answers (tests give fixed ones).
    public init(exists: @escaping @Sendable (String) -> Bool, read: @escaping @Sendable (String) -> String?) {
        self.exists = exists
        self.read = read
    }

    /// The real file system.
    public static let system = FileProbe(
        exists: { FileManager.default.fileExists(atPath: $0) },
        read: { path in FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } })
}
