// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// What each agent and receiver can do on this machine, with the platform facts behind it:
/// the data of `eua capabilities`.
public struct CapabilityReport: Sendable, Encodable {
    /// Platform facts, plus what the plugins found (default browser, installed browsers, loopback).
    public struct Platform: Sendable, Encodable {
        /// Display, SSH, sandbox, WSL and container facts.
        public var facts: PlatformFacts
        /// The default handler for https links (GIO), when the system-browser plugin found one.
        public var defaultBrowser: JSONValue?
        /// Apps that open https links (GIO's list).
        public var installedBrowsers: [JSONValue]
        /// Whether 127.0.0.1 could be bound (`nil`: not checked).
        public var ipv4Loopback: Bool?
        /// Whether ::1 could be bound (`nil`: not checked).
        public var ipv6Loopback: Bool?

        enum CodingKeys: String, CodingKey {
            case defaultBrowser = "default_browser"
            case installedBrowsers = "installed_browsers"
            case ipv4Loopback = "ipv4_loopback"
            case ipv6Loopback = "ipv6_loopback"
        }

        public func encode(to encoder: any Encoder) throws {
            try facts.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(defaultBrowser ?? .null, forKey: .defaultBrowser)
            try container.encode(installedBrowsers, forKey: .installedBrowsers)
            try container.encode(ipv4Loopback, forKey: .ipv4Loopback)
            try container.encode(ipv6Loopback, forKey: .ipv6Loopback)
        }
    }

    /// One agent or receiver.
    public struct Entry: Sendable, Encodable {
        /// The agent's or receiver's id.
        public var id: String
        /// The agent kind, or `receiver`.
        public var kind: String
        /// Whether it can run here, as its plugin reports.
        public var available: Bool
        /// Never empty when `available` is false.
        public var reasons: [String]
        /// The plugin file it came from.
        public var path: String?
        /// What its plugin found on this machine (handler, executable, …).
        public var details: [String: JSONValue]
    }

    /// The machine's facts.
    public var platform: Platform
    /// Every agent the plugins offer.
    public var agents: [Entry]
    /// Every redirect receiver the plugins offer.
    public var receivers: [Entry]

    /// Builds the report from what the plugins said and the platform facts.
    public init(catalog: PluginCatalog, facts: PlatformFacts) {
        let systemBrowser = catalog.agent(id: "system-browser")?.details ?? [:]
        let loopback = catalog.receiver(id: "loopback")?.details ?? [:]
        func flag(_ value: JSONValue?) -> Bool? {
            if case .bool(let flag)? = value { return flag }
            return nil
        }
        var browsers: [JSONValue] = []
        if case .array(let list)? = systemBrowser["browsers"] { browsers = list }
        platform = Platform(
            facts: facts, defaultBrowser: systemBrowser["handler"], installedBrowsers: browsers,
            ipv4Loopback: flag(loopback["ipv4"]), ipv6Loopback: flag(loopback["ipv6"]))
        agents = catalog.agents.map {
            Entry(
                id: $0.descriptor.id, kind: $0.descriptor.kind.rawValue, available: $0.available,
                reasons: $0.reasons, path: $0.descriptor.path, details: $0.details)
        }
        receivers = catalog.receivers.map {
            Entry(
                id: $0.id, kind: "receiver", available: $0.available, reasons: $0.reasons,
                path: $0.plugin.path, details: $0.details)
        }
    }
}
