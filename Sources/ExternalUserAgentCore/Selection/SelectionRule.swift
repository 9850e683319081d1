// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// The rules of selection, in the order they are applied.
public enum SelectionRule: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    /// 1. `embeddedWebView` agents are never selectable (RFC 8252 §8.12).
    case noEmbeddedWebViews = 1
    /// 2. `testDouble` agents only when allowed, and never when the managed file forbids them.
    case testAgents
    /// 3. The allow and deny lists (agent id and version range).
    case allowDeny
    /// 4. Whether the agent can run on this machine.
    case availability
    /// 5. The preference order; the first survivor wins.
    case preference

    public static func < (lhs: SelectionRule, rhs: SelectionRule) -> Bool { lhs.rawValue < rhs.rawValue }

    /// A short name (`embedded-web-view`, `test-agents`, `allow-deny`, `availability`, `preference`).
    public var description: String {
        switch self {
        case .noEmbeddedWebViews: "embedded-web-view"
        case .testAgents: "test-agents"
        case .allowDeny: "allow-deny"
        case .availability: "availability"
        case .preference: "preference"
        }
    }
}

/// What selection decided about one candidate, and why.
public struct CandidateVerdict: Sendable {
    /// The candidate.
    public var candidate: AgentCandidate
    /// Whether it was chosen.
    public var selected: Bool
    /// The first rule that removed it; `nil` for the chosen one and for survivors that came later in the order.
    public var removedBy: SelectionRule?
    /// Every reason, in rule order: why each rule removed it, or why it won or came later.
    public var reasons: [String]

    /// The candidate's id.
    public var id: String { candidate.descriptor.id }
}
