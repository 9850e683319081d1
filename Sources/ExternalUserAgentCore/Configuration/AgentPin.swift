// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// An agent the managed file pins, and which of its options only the managed file may set.
///
/// The managed file pins an agent (an id or a family, as written) when it names it in `preference` or `allow`, or
/// gives it an `[agent-options.<name>]` table. An administrator who pins an agent pins the program that runs: the
/// ``lockedOptions`` (`executable`, `extra-args`, `headless`) then follow the managed file, and the other layers'
/// values for them are ignored (``Configuration/ignored``, each naming this pin's file and line), unless the managed
/// table lists them in `user-options`:
///
/// ```toml
/// # /etc/eua/managed.toml
/// preference = ["firefox"]
/// [agent-options.firefox]
/// executable = "/usr/bin/firefox-esr"
/// user-options = ["extra-args"]   # people may still add browser flags, not change the binary
/// ```
public struct AgentPin: Sendable, Hashable, CustomStringConvertible {
    /// The agent id or family the managed file names.
    public var agent: String
    /// The managed setting that pins it: the `preference` or `allow` line naming it, else the first line of its table.
    public var pinnedBy: ConfigurationSetting
    /// The locked options the managed file lets other layers set again (`user-options`).
    public var userOptions: [String]

    /// The options only the managed file sets for this agent: every locked one not in ``userOptions``.
    public var lockedOptions: [String] {
        ConfigurationSchema.lockedAgentOptions.filter { !userOptions.contains($0) }
    }

    /// The pins `managed` (the managed file's settings) makes, by agent name.
    static func pins(_ managed: [ConfigurationSetting]) -> [String: AgentPin] {
        var pins: [String: AgentPin] = [:]
        func pin(_ name: String, _ setting: ConfigurationSetting) {
            guard name != "*", pins[name] == nil else { return }
            pins[name] = AgentPin(agent: name, pinnedBy: setting, userOptions: [])
        }
        let managed = managed.filter { $0.origin.layer == .managed }
        for setting in managed where setting.key == .preference {
            for name in setting.value.stringList ?? [] { pin(name, setting) }
        }
        for setting in managed where setting.key == .allow {
            for entry in setting.value.stringList ?? [] {
                if let matcher = try? AgentMatcher(parsing: entry) { pin(matcher.id, setting) }
            }
        }
        for setting in managed {
            guard let name = setting.key.agentOptionAgent else { continue }
            pin(name, setting)
            if setting.key.components[2] == ConfigurationSchema.userOptions {
                pins[name]?.userOptions = setting.value.stringList ?? []
            }
        }
        return pins
    }

    /// Whether `option` of this agent may come only from the managed file.
    func locks(_ option: String) -> Bool { lockedOptions.contains(option) }

    /// `the managed file /etc/eua/managed.toml:3 pins the agent 'firefox'`.
    public var description: String {
        "the managed file \(pinnedBy.origin.location) pins the agent '\(agent)'"
    }

    /// Why a value for the locked `option` was not used, and what the administrator can change.
    func refusal(of option: String) -> String {
        "\(description), and with it the agent's \(ConfigurationSchema.lockedAgentOptions.joined(separator: ", ")) "
            + (userOptions.isEmpty ? "" : "(but \(userOptions.joined(separator: ", ")), which it lets users set) ")
            + "— the program that runs; only the administrator can let users set \(option): "
            + "user-options = [\"\(option)\"] in [agent-options.\(agent)] of that file"
    }
}
