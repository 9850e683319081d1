// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The JSON shapes that cross the C plugin ABI (see `eua_plugin.h`).
///
/// Host and plugin kit each embed their own copy of this module; only the JSON
/// text crosses the boundary, never these Swift types.
public enum PluginABI {}

extension PluginABI {
    /// `describe()`: the plugin and what it offers on this machine.
    public struct PluginDescription: Codable, Sendable, Equatable {
        /// The plugin's id (letters, digits, `.`, `_`, `-`; the host checks the grammar).
        public var id: String
        /// A name for people.
        public var name: String
        /// The plugin's version.
        public var version: String
        /// The agents it offers.
        public var agents: [Component]
        /// The redirect receivers it offers.
        public var receivers: [Component]

        /// A description of a plugin and what it offers.
        public init(id: String, name: String, version: String, agents: [Component] = [], receivers: [Component] = []) {
            self.id = id
            self.name = name
            self.version = version
            self.agents = agents
            self.receivers = receivers
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            name = try container.decodeIfPresent(String.self, forKey: .name) ?? id
            version = try container.decodeIfPresent(String.self, forKey: .version) ?? "unknown"
            agents = try container.decodeIfPresent([Component].self, forKey: .agents) ?? []
            receivers = try container.decodeIfPresent([Component].self, forKey: .receivers) ?? []
        }
    }

    /// One agent or receiver listed by a plugin.
    public struct Component: Codable, Sendable, Equatable {
        /// The component's id; agents and receivers share one namespace.
        public var id: String
        /// Agents only: one of `externalBrowser`, `inAppBrowserTab`, `embeddedWebView`, `testDouble`, `manual`.
        public var kind: String?
        /// Agents only: the browser family it belongs to (`firefox` for firefox-esr, `chrome` for
        /// google-chrome), so configuration can name the family; absent when the id is the family.
        public var family: String?
        /// A name for people.
        public var name: String
        /// Its version (a browser's, for browser agents), when known.
        public var version: String?
        /// Whether it can run on this machine.
        public var available: Bool
        /// Why it cannot run here (never empty when unavailable).
        public var reasons: [String]
        /// What the plugin found on this machine that a capability report shows (handler, browsers, …).
        public var details: [String: JSONValue]?

        /// A component as a plugin lists it.
        public init(
            id: String, kind: String? = nil, family: String? = nil, name: String, version: String? = nil,
            available: Bool = true, reasons: [String] = [], details: [String: JSONValue]? = nil
        ) {
            self.id = id
            self.kind = kind
            self.family = family
            self.name = name
            self.version = version
            self.available = available
            self.reasons = reasons
            self.details = details
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            kind = try container.decodeIfPresent(String.self, forKey: .kind)
            family = try container.decodeIfPresent(String.self, forKey: .family)
            name = try container.decodeIfPresent(String.self, forKey: .name) ?? id
            version = try container.decodeIfPresent(String.self, forKey: .version)
            available = try container.decodeIfPresent(Bool.self, forKey: .available) ?? true
            reasons = try container.decodeIfPresent([String].self, forKey: .reasons) ?? []
            details = try container.decodeIfPresent([String: JSONValue].self, forKey: .details)
        }
    }

    /// `start()` for an agent: what to show.
    public struct AgentRequest: Codable, Sendable, Equatable {
        /// The URL to present.
        public var url: String
        /// Where the answer comes back, when the agent needs to know (follow mode stops there).
        public var redirectURI: String?
        /// How long the flow may take.
        public var timeoutSeconds: Double?
        /// What the request is for: `"sign-in"` or `"sign-out"`; absent (an older host) means a sign-in.
        public var purpose: String?

        /// A request to present `url`.
        public init(url: String, redirectURI: String? = nil, timeoutSeconds: Double? = nil, purpose: String? = nil) {
            self.url = url
            self.redirectURI = redirectURI
            self.timeoutSeconds = timeoutSeconds
            self.purpose = purpose
        }

        /// Whether the request ends a session (`purpose` is `"sign-out"`): an agent that speaks to the person says
        /// "sign out", not "sign in".
        public var isSignOut: Bool { purpose == "sign-out" }

        enum CodingKeys: String, CodingKey {
            case url, purpose
            case redirectURI = "redirect_uri"
            case timeoutSeconds = "timeout_seconds"
        }
    }

    /// `start()` for a receiver: what to expect.
    public struct ReceiverRequest: Codable, Sendable, Equatable {
        public var state: String?
        public var path: String?
        public var timeoutSeconds: Double?
        /// A form the receiver serves once before the redirect comes back (`hand_off`); absent from older hosts.
        public var handOff: HandOff?

        public init(state: String? = nil, path: String? = nil, timeoutSeconds: Double? = nil, handOff: HandOff? = nil) {
            self.state = state
            self.path = path
            self.timeoutSeconds = timeoutSeconds
            self.handOff = handOff
        }

        enum CodingKeys: String, CodingKey {
            case state, path
            case timeoutSeconds = "timeout_seconds"
            case handOff = "hand_off"
        }
    }

    /// A form a loopback receiver serves once, at `path`, and the browser submits at once: how a request that must
    /// not be in a launched URL (an end-session request with `id_token_hint`) reaches the provider. The agent is
    /// given only the one-time loopback URL.
    ///
    /// JSON: `{"path": "/…", "action": "https://…", "method": "post" | "get", "fields": [{"name": …, "value": …}],
    /// "redirect_uri_field": "post_logout_redirect_uri"}`; the receiver adds a field named `redirect_uri_field`
    /// whose value is its own redirect URI.
    public struct HandOff: Codable, Sendable, Equatable {
        /// One form field.
        public struct Field: Codable, Sendable, Hashable {
            /// The field's name.
            public var name: String
            /// Its value.
            public var value: String
            /// A field `name` = `value`.
            public init(name: String, value: String) {
                self.name = name
                self.value = value
            }
        }

        /// The one-time path on the receiver's listener (`/` and URL-safe characters).
        public var path: String
        /// Where the form goes: an absolute http(s) URL.
        public var action: String
        /// `post` or `get`.
        public var method: String
        /// The fields, in order.
        public var fields: [Field]
        /// The name of the field the receiver adds with its redirect URI, if any.
        public var redirectURIField: String?

        /// A form to `action` with `fields`, served once at `path`.
        public init(path: String, action: String, method: String, fields: [Field], redirectURIField: String? = nil) {
            self.path = path
            self.action = action
            self.method = method
            self.fields = fields
            self.redirectURIField = redirectURIField
        }

        enum CodingKeys: String, CodingKey {
            case path, action, method, fields
            case redirectURIField = "redirect_uri_field"
        }
    }

    /// An error as it crosses the ABI (`create`'s error, a `failed` event).
    public struct ErrorValue: Codable, Sendable, Equatable {
        /// One of the error names in `eua_plugin.h` (`invalid_options`, `presentation_failed`, …).
        public var code: String
        /// What went wrong and what to do.
        public var message: String

        /// An error named `code`, with `message`.
        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    /// One event from a running instance.
    public enum Event: Sendable, Equatable {
        case presented
        case redirect(url: String)
        case listening(redirectURI: String)
        case callback(url: String)
        /// A receiver turned a request away (HTTP `status`, a fixed `reason`, never request data).
        case refused(status: Int, reason: String)
        case finished
        case failed(ErrorValue)

        /// Whether this event ends the instance's work (exactly one per `start`).
        public var isTerminal: Bool {
            switch self {
            case .finished, .failed: true
            default: false
            }
        }
    }
}

extension PluginABI.Event: Codable {
    enum CodingKeys: String, CodingKey {
        case event, url, error, status, reason
        case redirectURI = "redirect_uri"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .event)
        switch name {
        case "presented": self = .presented
        case "redirect": self = .redirect(url: try container.decode(String.self, forKey: .url))
        case "listening": self = .listening(redirectURI: try container.decode(String.self, forKey: .redirectURI))
        case "callback": self = .callback(url: try container.decode(String.self, forKey: .url))
        case "refused":
            self = .refused(
                status: try container.decode(Int.self, forKey: .status),
                reason: try container.decode(String.self, forKey: .reason))
        case "finished": self = .finished
        case "failed": self = .failed(try container.decode(PluginABI.ErrorValue.self, forKey: .error))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .event, in: container, debugDescription: "unknown event \"\(name)\"")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .presented: try container.encode("presented", forKey: .event)
        case .redirect(let url):
            try container.encode("redirect", forKey: .event)
            try container.encode(url, forKey: .url)
        case .listening(let uri):
            try container.encode("listening", forKey: .event)
            try container.encode(uri, forKey: .redirectURI)
        case .callback(let url):
            try container.encode("callback", forKey: .event)
            try container.encode(url, forKey: .url)
        case .refused(let status, let reason):
            try container.encode("refused", forKey: .event)
            try container.encode(status, forKey: .status)
            try container.encode(reason, forKey: .reason)
        case .finished: try container.encode("finished", forKey: .event)
        case .failed(let error):
            try container.encode("failed", forKey: .event)
            try container.encode(error, forKey: .error)
        }
    }
}
