// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// Reads the environment layer: `EUA_AGENT`, `EUA_AGENT_OPTIONS`, `EUA_ALLOW_TEST_AGENTS`, `EUA_STORAGE`, `$BROWSER`.
///
/// - `EUA_AGENT=firefox` (or `firefox,chromium`): the preference, exactly these agents.
/// - `EUA_AGENT_OPTIONS=profile=work,private=true`: options for the first agent of `EUA_AGENT`.
/// - `EUA_ALLOW_TEST_AGENTS=1` (or `0`): allows (or forbids) test agents.
/// - `EUA_STORAGE=file` (or `secret-service`): where tokens are saved (`[storage] backend`).
/// - `BROWSER=firefox:/usr/bin/chromium %s`: when `EUA_AGENT` is unset, each command's program name is
///   taken as an agent id, in order, followed by `*` (any other agent): `$BROWSER` is a hint, not a demand.
enum EnvironmentLayer {
    static func settings(_ environment: [String: String]) throws(ExternalUserAgentError)
        -> (settings: [ConfigurationSetting], warnings: [ConfigurationWarning])
    {
        var settings: [ConfigurationSetting] = []
        var warnings: [ConfigurationWarning] = []
        func origin(_ name: String) -> ConfigurationOrigin { ConfigurationOrigin(layer: .environment, source: name) }

        let agents = (environment["EUA_AGENT"] ?? "").split(separator: ",").map { $0.trimmingWhitespace() }
            .filter { !$0.isEmpty }
        if !agents.isEmpty {
            let value = ConfigurationValue.list(agents.map(ConfigurationValue.string))
            if let problem = ConfigurationSchema.problem(with: value, for: .agentList) {
                throw ExternalUserAgentError(
                    .configurationInvalid,
                    "environment EUA_AGENT: expected agent ids separated by commas, like 'firefox' or 'firefox,*'; \(problem)"
                )
            }
            settings.append(ConfigurationSetting(key: .preference, value: value, origin: origin("EUA_AGENT")))
        } else if let browser = environment["BROWSER"], !browser.trimmingWhitespace().isEmpty {
            var ids: [String] = []
            for command in browser.split(separator: ":") {
                guard let program = command.split(separator: " ").first else { continue }
                let name = String(program.split(separator: "/").last ?? program)
                if (try? AgentMatcher(parsing: name))?.id == name, !ids.contains(name) { ids.append(name) }
            }
            settings.append(
                ConfigurationSetting(
                    key: .preference, value: .list((ids + ["*"]).map(ConfigurationValue.string)),
                    origin: origin("BROWSER")))
        }

        if let text = environment["EUA_AGENT_OPTIONS"], !text.trimmingWhitespace().isEmpty {
            let agent = agents.first { $0 != "*" }
            if agent == nil {
                warnings.append(
                    ConfigurationWarning(
                        origin: origin("EUA_AGENT_OPTIONS"),
                        message: "ignored: EUA_AGENT is not set, so these options are for no agent; set EUA_AGENT too"))
            }
            for pair in text.split(separator: ",") {
                guard let agent else { break }
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = parts[0].trimmingWhitespace()
                guard parts.count == 2, !name.isEmpty else {
                    throw ExternalUserAgentError(
                        .configurationInvalid,
                        "environment EUA_AGENT_OPTIONS: entry '\(pair)': expected name=value pairs separated by commas, "
                            + "like 'profile=work,private=true'")
                }
                let key = ConfigurationKey.agentOption(agent, name)
                let text = parts[1].trimmingWhitespace()
                let shape = ConfigurationSchema.shape(of: key)
                let value: ConfigurationValue =
                    shape == .bool && (text == "true" || text == "false")
                    ? .bool(text == "true") : .string(text)
                if let shape, let problem = ConfigurationSchema.problem(with: value, for: shape) {
                    throw ExternalUserAgentError(
                        .configurationInvalid,
                        "environment EUA_AGENT_OPTIONS: key '\(name)': expected \(shape.expectation); \(problem)")
                }
                settings.append(ConfigurationSetting(key: key, value: value, origin: origin("EUA_AGENT_OPTIONS")))
            }
        }

        if let text = environment["EUA_STORAGE"]?.trimmingWhitespace(), !text.isEmpty {
            guard ["secret-service", "file"].contains(text) else {
                throw ExternalUserAgentError(
                    .configurationInvalid,
                    "environment EUA_STORAGE: expected \"secret-service\" or \"file\"; got '\(text)'")
            }
            settings.append(
                ConfigurationSetting(key: .storageBackend, value: .string(text), origin: origin("EUA_STORAGE")))
        }

        if let text = environment["EUA_ALLOW_TEST_AGENTS"] {
            switch text.trimmingWhitespace().lowercased() {
            case "1", "true", "yes":
                settings.append(
                    ConfigurationSetting(
                        key: .allowTestAgents, value: .bool(true), origin: origin("EUA_ALLOW_TEST_AGENTS")))
            case "0", "false", "no":
                settings.append(
                    ConfigurationSetting(
                        key: .allowTestAgents, value: .bool(false), origin: origin("EUA_ALLOW_TEST_AGENTS")))
            case "":
                break
            default:
                warnings.append(
                    ConfigurationWarning(
                        origin: origin("EUA_ALLOW_TEST_AGENTS"), message: "'\(text)' is ignored; expected 1 or 0"))
            }
        }
        return (settings, warnings)
    }
}
