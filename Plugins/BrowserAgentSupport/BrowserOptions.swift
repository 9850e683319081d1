// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentPluginKit

/// The options a browser agent takes (agent options, also settable in config):
/// `private`, `profile` (a name, or a directory when it holds a `/`), `new-window`, `ephemeral`
/// (a fresh temporary profile, deleted when the flow ends), `headless` (for CI only), `extra-args`
/// (space-separated), `executable` (an explicit path). Combinations that cannot work are refused.
public struct BrowserOptions: Sendable, Equatable {
    public var privateWindow = false
    public var profile: String?
    public var newWindow = false
    public var ephemeral = false
    public var headless = false
    public var extraArguments: [String] = []
    public var executable: String?

    public static let knownKeys = [
        "private", "profile", "new-window", "ephemeral", "headless", "extra-args", "executable",
    ]

    public init() {}

    public init(options: [String: String]) throws {
        for (key, value) in options {
            switch key {
            case "private": privateWindow = try Self.flag(key, value)
            case "profile":
                guard !value.isEmpty else {
                    throw PluginError.invalidOptions("option profile= needs a profile name or directory")
                }
                profile = value
            case "new-window": newWindow = try Self.flag(key, value)
            case "ephemeral": ephemeral = try Self.flag(key, value)
            case "headless": headless = try Self.flag(key, value)
            case "extra-args": extraArguments = value.split(separator: " ").map(String.init)
            case "executable":
                guard value.hasPrefix("/") else {
                    throw PluginError.invalidOptions("option executable=\(value) must be an absolute path")
                }
                executable = value
            default:
                throw PluginError.invalidOptions(
                    "option '\(key)' is unknown to browser agents; known: "
                        + Self.knownKeys.joined(separator: ", "))
            }
        }
        if ephemeral, profile != nil {
            throw PluginError.invalidOptions(
                "ephemeral=true and profile=\(profile!) cannot work together: an ephemeral "
                    + "flow uses a fresh temporary profile; drop one of them")
        }
        if headless, newWindow {
            throw PluginError.invalidOptions(
                "headless=true and new-window=true cannot work together: a headless browser "
                    + "has no windows; drop new-window")
        }
        if headless, privateWindow {
            throw PluginError.invalidOptions(
                "headless=true and private=true cannot work together: use ephemeral=true "
                    + "for a browser that keeps nothing")
        }
    }

    /// Whether the agent starts (and so owns, watches and ends) its own browser process.
    public var ownsInstance: Bool { ephemeral || headless }

    private static func flag(_ key: String, _ value: String) throws -> Bool {
        switch value.lowercased() {
        case "true", "yes", "1", "": return true
        case "false", "no", "0": return false
        default: throw PluginError.invalidOptions("option \(key)=\(value) must be true or false")
        }
    }
}
