/// Who an agent is: a stable id, its kind, and where it came from.
public struct AgentDescriptor: Sendable, Hashable, Codable {
    /// Stable id used in configuration and on the command line (`firefox`, `headless`).
    public var id: String
    public var kind: AgentKind
    /// A name for people.
    public var name: String
    /// The agent's (or its browser's) version, when known.
    public var version: String?
    /// The plugin file the agent came from; `nil` for agents registered in code.
    public var path: String?

    public init(id: String, kind: AgentKind, name: String? = nil, version: String? = nil, path: String? = nil) {
        self.id = id
        self.kind = kind
        self.name = name ?? id
        self.version = version
        self.path = path
    }
}
