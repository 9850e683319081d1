// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// What a plugin search found: the plugins that loaded, what they offer, and what failed.
public struct PluginCatalog: Sendable {
    /// Plugins that loaded, in search order.
    public var plugins: [LoadedPlugin] = []
    /// Every agent they offer, in search order; ids are unique.
    public var agents: [PluginAgentEntry] = []
    /// Every redirect receiver they offer, in search order; ids are unique.
    public var receivers: [PluginReceiverEntry] = []
    /// Files (or parts of them) that were refused, each with the reason.
    public var failures: [PluginLoadFailure] = []

    /// An empty catalog.
    public init() {}

    /// The agent with `id`, if one loaded.
    public func agent(id: String) -> PluginAgentEntry? {
        agents.first { $0.descriptor.id == id }
    }

    /// The receiver with `id`, if one loaded.
    public func receiver(id: String) -> PluginReceiverEntry? {
        receivers.first { $0.id == id }
    }
}

/// A plugin file that was refused (or a part of it), and why.
public struct PluginLoadFailure: Sendable, CustomStringConvertible {
    /// The `.so` file (or folder) concerned.
    public var path: String
    /// What went wrong and what to do.
    public var error: ExternalUserAgentError

    /// `path` refused with `error`.
    public init(path: String, error: ExternalUserAgentError) {
        self.path = path
        self.error = error
    }

    public var description: String { "\(path): \(error.message)" }
}
