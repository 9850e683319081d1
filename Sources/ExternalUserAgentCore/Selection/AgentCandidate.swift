// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// An agent selection may choose: one a plugin offers, or one the app registers in code.
public struct AgentCandidate: Sendable {
    /// Where the candidate comes from.
    public enum Source: Sendable {
        /// Offered by a loaded plugin.
        case plugin(PluginAgentEntry)
        /// Registered by the app.
        case code(any ExternalUserAgent)
    }

    /// Who the agent is (its id, kind and version are what the rules look at).
    public var descriptor: AgentDescriptor
    /// Whether it can run on this machine.
    public var available: Bool
    /// Why not, when it cannot.
    public var reasons: [String]
    /// Where the agent comes from: a plugin or the app's code.
    public var source: Source
    /// How a plugin's agent is made for a session, when not in this process by
    /// ``PluginAgentEntry/makeAgent(options:dismissGrace:)`` (`nil`): the sign-in service runs each one in a child
    /// process of its own, so that a plugin that crashes takes only that child with it.
    public var pluginAgentMaker: (@Sendable (PluginAgentEntry, [String: String]) -> any ExternalUserAgent)?

    /// A plugin's agent, with the availability its plugin probed.
    public init(plugin entry: PluginAgentEntry) {
        descriptor = entry.descriptor
        available = entry.available
        reasons = entry.reasons
        source = .plugin(entry)
    }

    /// An agent made in code; say `available: false` and why, when the app knows it cannot run.
    public init(agent: any ExternalUserAgent, available: Bool = true, reasons: [String] = []) {
        descriptor = agent.descriptor
        self.available = available
        self.reasons = available || !reasons.isEmpty ? reasons : ["the app says it cannot run here"]
        source = .code(agent)
    }

    /// Where it comes from, for reports: the plugin file, or `code`.
    public var origin: String {
        switch source {
        case .plugin(let entry): entry.plugin.path
        case .code: "code"
        }
    }

    /// The agent, ready for one session; a plugin's agent gets `options`.
    public func makeAgent(options: [String: String] = [:]) -> any ExternalUserAgent {
        switch source {
        case .plugin(let entry): pluginAgentMaker?(entry, options) ?? entry.makeAgent(options: options)
        case .code(let agent): agent
        }
    }
}
