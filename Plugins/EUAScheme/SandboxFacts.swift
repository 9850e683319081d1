// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif
import ExternalUserAgentPluginKit

/// What works for a scheme redirect inside Flatpak or Snap, for the capability report.
struct SandboxFacts {
    /// `flatpak`, `snap` or `none`.
    var sandbox: String

    static func current() -> SandboxFacts {
        if access("/.flatpak-info", F_OK) == 0 { return SandboxFacts(sandbox: "flatpak") }
        if getenv("SNAP") != nil { return SandboxFacts(sandbox: "snap") }
        return SandboxFacts(sandbox: "none")
    }

    var details: [String: JSONValue] {
        let registration: String
        switch sandbox {
        case "flatpak":
            registration =
                "declare MimeType=x-scheme-handler/<scheme>; in the app's own exported desktop file (the manifest); "
                + "a registration made from inside the sandbox cannot change the host's defaults"
        case "snap":
            registration =
                "declare the scheme in the snap's desktop file (snapcraft.yaml); a registration made from "
                + "inside the snap cannot change the host's defaults"
        default:
            registration =
                "a desktop entry for x-scheme-handler/<scheme>, made the default handler, hands the redirect "
                + "over"
        }
        return [
            "sandbox": .string(sandbox),
            "schemeRegistration": .string(registration),
            "schemeLaunching": .string(
                sandbox == "none"
                    ? "any agent"
                    : "the desktop portal's OpenURI (org.freedesktop.portal.OpenURI) opens the authorization URL"),
        ]
    }
}
