// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentSystem
#if canImport(Glibc)
import Glibc
#endif

/// Whether we run inside Flatpak or Snap, where links must go through the OpenURI portal.
/// GLib has no public check, so this reads what the sandboxes leave behind.
enum Sandbox: String {
    case flatpak, snap

    static func current(environment: [String: String] = ProcessEnvironment.current()) -> Sandbox? {
        let flatpakInfo = environment["EUA_FLATPAK_INFO"] ?? "/.flatpak-info"
        if access(flatpakInfo, F_OK) == 0 { return .flatpak }
        if environment["SNAP"] != nil { return .snap }
        return nil
    }
}
