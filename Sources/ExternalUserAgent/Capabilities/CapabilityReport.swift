/// What each agent and receiver can do on this machine, with the platform facts behind it:
/// the data of `eua capabilities`.
public struct CapabilityReport: Sendable, Encodable {
    /// Platform facts, plus what the plugins found (default browser, installed browsers, loopback).
    public struct Platform: Sendable, Encodable {
        public var facts: PlatformFacts
        /// The default handler for https links (GIO), when the system-browser plugin found one.
        public var defaultBrowser: JSONValue?
        /// Apps that open https links (GIO's list).
        public var installedBrowsers: [JSONValue]
        public var ipv4Loopback: Bool?
        public var ipv6Loopback: Bool?

        enum CodingKeys: String, CodingKey {
            case defaultBrowser = "default_browser", installedBrowsers = "installed_browsers"
            case ipv4Loopback = "ipv4_loopback", ipv6Loopback = "ipv6_loopback"
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
        public var id: String
        public var kind: String
        public var available: Bool
        /// Never empty when `available` is false.
        public var reasons: [String]
        public var path: String?
        public var details: [String: JSONValue]
    }

    public var platform: Platform
    public var agents: [Entry]
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
        platform = Platform(facts: facts, defaultBrowser: systemBrowser["handler"], installedBrowsers: browsers,
                            ipv4Loopback: flag(loopback["ipv4"]), ipv6Loopback: flag(loopback["ipv6"]))
        agents = catalog.agents.map {
            Entry(id: $0.descriptor.id, kind: $0.descriptor.kind.rawValue, available: $0.available,
                  reasons: $0.reasons, path: $0.descriptor.path, details: $0.details)
        }
        receivers = catalog.receivers.map {
            Entry(id: $0.id, kind: "receiver", available: $0.available, reasons: $0.reasons,
                  path: $0.plugin.path, details: $0.details)
        }
    }
}
