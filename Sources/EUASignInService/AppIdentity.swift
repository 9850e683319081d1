// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// Who is calling, as the sandbox's own files and the host's cgroups say: the app id that owns the accounts it
/// makes. A host app's id is a label, not a boundary (any unsandboxed process of the user can read the keyring);
/// the boundary is sandbox ↔ sandbox and sandbox ↔ host.
enum AppIdentity: Equatable, Sendable {
    /// A Flatpak app: its application id (`[Application] name` of `.flatpak-info`) and instance id.
    case flatpak(id: String, instance: String)
    /// A Snap: its snap name (from its cgroup, `snap.<name>.<app>…`).
    case snap(name: String)
    /// An unsandboxed app, with the app id of its systemd scope (`app-…-<AppID>-….scope`) when it has one.
    case host(appID: String?)

    /// The owner written in the keyring and in the configuration: the Flatpak id, `snap.<name>`, `host:<id>`, `host`.
    var appID: String {
        switch self {
        case .flatpak(let id, _): id
        case .snap(let name): "snap." + name
        case .host(let id?): "host:" + id
        case .host(nil): "host"
        }
    }

    /// Whether the app runs in a sandbox (Flatpak or Snap).
    var isSandboxed: Bool {
        if case .host = self { return false }
        return true
    }
}
