// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// Who an agent is: a stable id, its kind, and where it came from.
public struct AgentDescriptor: Sendable, Hashable, Codable {
    /// Stable id used in configuration and on the command line (`firefox`, `headless`).
    public var id: String
    /// What sort of agent it is; selection's rules depend on it (RFC 8252 §8.12 rules out embedded web views).
    public var kind: AgentKind
    /// The browser family the agent belongs to (`firefox` for `firefox-esr`, `chrome` for `google-chrome`), or
    /// `nil` when its id is its family. Configuration and `--agent` may name the family instead of the id.
    public var family: String?
    /// A name for people.
    public var name: String
    /// The agent's (or its browser's) version, when known.
    public var version: String?
    /// The plugin file the agent came from; `nil` for agents registered in code.
    public var path: String?

    /// A descriptor; `family` equal to `id` is stored as `nil`, and `name` defaults to the id.
    public init(
        id: String, kind: AgentKind, family: String? = nil, name: String? = nil, version: String? = nil,
        path: String? = nil
    ) {
        self.id = id
        self.kind = kind
        self.family = family == id ? nil : family
        self.name = name ?? id
        self.version = version
        self.path = path
    }
}

extension AgentDescriptor {
    /// Whether `name`, as written in configuration, in code or after `--agent`, names this agent: its id, or
    /// its family (`firefox` names firefox, firefox-esr and the other Firefox builds). The one rule every
    /// selection step uses.
    public func answers(to name: String) -> Bool {
        name == id || (family != nil && name == family)
    }
}
