// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// One entry of an allow or deny list: an agent id (``ComponentID``; or `*` for every agent), optionally with a
/// ``VersionRange`` for the agent's browser version.
///
/// Written `firefox`, `firefox>=115`, `chromium 120..<130`, `* >=100`. Like AppAuth-Android's
/// `VersionedBrowserMatcher`: with a range, an agent whose version is unknown never matches.
public struct AgentMatcher: Sendable, Hashable, CustomStringConvertible {
    /// The agent id, or `*` for any.
    public var id: String
    /// The versions matched; `nil` matches the agent whatever its version (known or not).
    public var versions: VersionRange?

    /// A matcher of `id` (or `*`) within `versions` when given.
    public init(id: String, versions: VersionRange? = nil) {
        self.id = id
        self.versions = versions
    }

    /// Parses `firefox`, `firefox>=115`, `chromium 120..<130`.
    public init(parsing text: String) throws(VersionRangeSyntaxError) {
        let spec = text.trimmingWhitespace()
        let idEnd = spec.firstIndex { $0.isWhitespace || "<>=".contains($0) } ?? spec.endIndex
        let id = String(spec[..<idEnd])
        guard id == "*" || ComponentID.isValid(id) else {
            throw VersionRangeSyntaxError(
                text: text,
                problem: "expected an agent id (\(ComponentID.grammar)) or '*', then optionally a "
                    + "version range, like 'firefox>=115' or 'chromium 120..<130'")
        }
        let rest = spec[idEnd...].trimmingWhitespace()
        self.id = id
        self.versions = rest.isEmpty ? nil : try VersionRange(parsing: rest)
    }

    /// Whether the agent with `id` and `version` (as it reports it) matches.
    public func matches(id agentID: String, version: String?) -> Bool {
        matches(AgentDescriptor(id: agentID, kind: .externalBrowser, version: version))
    }

    /// Whether `agent` matches: `*`, its id or its family (``AgentDescriptor/answers(to:)``), and its version
    /// in the range when there is one.
    public func matches(_ agent: AgentDescriptor) -> Bool {
        guard id == "*" || agent.answers(to: id) else { return false }
        guard let versions else { return true }
        return versions.contains(agent.version.flatMap(BrowserVersion.init))
    }

    public var description: String {
        guard let versions else { return id }
        return "\(id) \(versions)"
    }
}
