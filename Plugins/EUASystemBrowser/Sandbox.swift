import FoundationEssentials

/// Whether we run inside Flatpak or Snap, where links must go through the OpenURI portal.
/// GLib has no public check, so this reads what the sandboxes leave behind.
enum Sandbox: String {
    case flatpak, snap

    static func current(environment: [String: String] = ProcessInfo.processInfo.environment) -> Sandbox? {
        let flatpakInfo = environment["EUA_FLATPAK_INFO"] ?? "/.flatpak-info"
        if FileManager.default.fileExists(atPath: flatpakInfo) { return .flatpak }
        if environment["SNAP"] != nil { return .snap }
        return nil
    }
}
