// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// Agent names in the configuration that name no candidate: an entry of `preference`, `allow` or `deny`, or an
/// `[agent-options.<name>]` table, whose name is neither an id nor a family of any agent here. Such a setting
/// silently does nothing ("force Firefox with this profile" would not happen), so each becomes a warning with
/// the file and line it came from and the names that do exist. With an agent named explicitly (`--agent`) the
/// other names do not matter, and a command may have loaded only that agent's plugin: no warnings then (a
/// named agent that is missing is an error of its own, ``SelectionReport/error``).
enum UnmatchedAgentNames {
    static func warnings(
        candidates: [AgentDescriptor], configuration: Configuration,
        preferenceText: String
    ) -> [String] {
        guard configuration.namedAgent == nil else { return [] }
        func known(_ name: String) -> Bool { name == "*" || candidates.contains { $0.answers(to: name) } }
        let here = "agents here: " + (candidates.isEmpty ? "none" : names(candidates))
        var warnings: [String] = []
        for name in configuration.preference where !known(name) {
            warnings.append("'\(name)' in \(preferenceText) matches no agent (\(here))")
        }
        for key in [ConfigurationKey.allow, .deny] {
            guard let setting = configuration[key] else { continue }
            let matchers = key == .allow ? configuration.allow : configuration.deny
            for matcher in matchers where !known(matcher.id) {
                warnings.append("\(setting.origin): the \(key) entry '\(matcher)' matches no agent (\(here))")
            }
        }
        var reported = Set<String>()
        for (key, setting) in configuration.settings.sorted(by: { $0.key.description < $1.key.description }) {
            guard let name = key.agentOptionAgent, !known(name), reported.insert(name).inserted else { continue }
            warnings.append(
                "\(setting.origin): [agent-options.\(name)] names no agent, so its options are not used "
                    + "(\(here))")
        }
        return warnings
    }

    /// `chromium, firefox-esr (family firefox), headless`.
    static func names(_ candidates: [AgentDescriptor]) -> String {
        candidates.map { agent in agent.family.map { "\(agent.id) (family \($0))" } ?? agent.id }
            .joined(separator: ", ")
    }
}
