// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// Where a setting comes from, weakest first; a stronger layer's value replaces a weaker one's.
///
/// `managed` is special: a key set in the managed file is pinned, and no other layer (not even
/// `code`) can change it; attempts are reported as ``IgnoredSetting``s.
public enum ConfigurationLayer: Int, Sendable, Hashable, Comparable, CaseIterable, Codable, CustomStringConvertible {
    /// The values ExternalUserAgent starts from.
    case defaults
    /// `$XDG_CONFIG_DIRS/eua/config.toml` (default `/etc/xdg/eua/config.toml`).
    case system
    /// `$XDG_CONFIG_HOME/eua/config.toml` (default `~/.config/eua/config.toml`).
    case user
    /// `EUA_AGENT`, `EUA_AGENT_OPTIONS`, `EUA_ALLOW_TEST_AGENTS`, `$BROWSER`.
    case environment
    /// What the app (or `eua --agent`) passes in ``CodeConfiguration``.
    case code
    /// The managed file (`/etc/eua/managed.toml`): pins every key it sets.
    case managed

    public static func < (lhs: ConfigurationLayer, rhs: ConfigurationLayer) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .defaults: "defaults"
        case .system: "system"
        case .user: "user"
        case .environment: "environment"
        case .code: "code"
        case .managed: "managed"
        }
    }
}
