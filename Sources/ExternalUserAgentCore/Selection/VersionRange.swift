// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A set of versions, written the way configuration files name them.
///
/// Forms: `>=115`, `>115`, `<=130`, `<130`, `==120.0.6099` (or `=…`), `120..<130`, `120...130`,
/// a bare `120` (every `120.x`), and `*` (any known version). An unknown version (an agent that
/// reports none, or one that is not a number) never matches a range, not even `*`.
public struct VersionRange: Sendable, Hashable, CustomStringConvertible {
    /// One edge of a range.
    public struct Bound: Sendable, Hashable {
        /// The bound's version.
        public var version: BrowserVersion
        /// Whether the bound itself is in the range.
        public var inclusive: Bool

        /// A bound at `version`, in the range when `inclusive`.
        public init(_ version: BrowserVersion, inclusive: Bool) {
            self.version = version
            self.inclusive = inclusive
        }
    }

    /// The lowest version matched, if any.
    public var lower: Bound?
    /// The highest version matched, if any.
    public var upper: Bound?
    /// When set, a version matches only if it starts with these components (a bare `120`).
    public var prefix: BrowserVersion?

    /// A range from its bounds, or every version starting with `prefix` (`firefox 128`).
    public init(lower: Bound? = nil, upper: Bound? = nil, prefix: BrowserVersion? = nil) {
        self.lower = lower
        self.upper = upper
        self.prefix = prefix
    }

    /// Every known version.
    public static let any = VersionRange()

    /// `version` and later.
    public static func atLeast(_ version: BrowserVersion) -> VersionRange {
        VersionRange(lower: Bound(version, inclusive: true))
    }

    /// Versions before `version`.
    public static func below(_ version: BrowserVersion) -> VersionRange {
        VersionRange(upper: Bound(version, inclusive: false))
    }

    /// From `lower` (included) to `upper` (excluded).
    public static func between(_ lower: BrowserVersion, _ upper: BrowserVersion) -> VersionRange {
        VersionRange(lower: Bound(lower, inclusive: true), upper: Bound(upper, inclusive: false))
    }

    /// Parses one of the forms above; throws a message saying what was expected.
    public init(parsing text: String) throws(VersionRangeSyntaxError) {
        let spec = text.trimmingWhitespace()
        func version(_ part: Substring, _ what: String) throws(VersionRangeSyntaxError) -> BrowserVersion {
            let trimmed = part.trimmingWhitespace()
            guard trimmed.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
                let parsed = BrowserVersion(trimmed),
                parsed.components.count == trimmed.split(separator: ".", omittingEmptySubsequences: false).count
            else {
                throw VersionRangeSyntaxError(
                    text: text, problem: "\(what) '\(trimmed)' is not a dotted version number like 115 or 120.0.6099")
            }
            return parsed
        }
        if spec == "*" {
            self = .any
        } else if let range = spec.firstRange(of: "..<") {
            let low = try version(spec[..<range.lowerBound], "the lower bound")
            let high = try version(spec[range.upperBound...], "the upper bound")
            guard low < high else { throw VersionRangeSyntaxError(text: text, problem: "\(low)..<\(high) is empty") }
            self.init(lower: Bound(low, inclusive: true), upper: Bound(high, inclusive: false))
        } else if let range = spec.firstRange(of: "...") {
            let low = try version(spec[..<range.lowerBound], "the lower bound")
            let high = try version(spec[range.upperBound...], "the upper bound")
            guard low <= high else { throw VersionRangeSyntaxError(text: text, problem: "\(low)...\(high) is empty") }
            self.init(lower: Bound(low, inclusive: true), upper: Bound(high, inclusive: true))
        } else if spec.hasPrefix(">=") {
            self.init(lower: Bound(try version(spec.dropFirst(2), "the version"), inclusive: true))
        } else if spec.hasPrefix("<=") {
            self.init(upper: Bound(try version(spec.dropFirst(2), "the version"), inclusive: true))
        } else if spec.hasPrefix("==") {
            let exact = try version(spec.dropFirst(2), "the version")
            self.init(lower: Bound(exact, inclusive: true), upper: Bound(exact, inclusive: true))
        } else if spec.hasPrefix(">") {
            self.init(lower: Bound(try version(spec.dropFirst(), "the version"), inclusive: false))
        } else if spec.hasPrefix("<") {
            self.init(upper: Bound(try version(spec.dropFirst(), "the version"), inclusive: false))
        } else if spec.hasPrefix("=") {
            let exact = try version(spec.dropFirst(), "the version")
            self.init(lower: Bound(exact, inclusive: true), upper: Bound(exact, inclusive: true))
        } else if spec.first?.isNumber == true {
            self.init(prefix: try version(spec[...], "the version"))
        } else {
            throw VersionRangeSyntaxError(
                text: text,
                problem: "expected '*', '>=V', '>V', '<=V', '<V', '==V', 'A..<B', 'A...B' or a bare version 'V'")
        }
    }

    /// Whether `version` is in the range; `nil` (unknown) never is.
    public func contains(_ version: BrowserVersion?) -> Bool {
        guard let version else { return false }
        if let prefix, !version.hasPrefix(prefix) { return false }
        if let lower {
            if lower.inclusive ? version < lower.version : version <= lower.version { return false }
        }
        if let upper {
            if upper.inclusive ? version > upper.version : version >= upper.version { return false }
        }
        return true
    }

    public var description: String {
        if let prefix { return prefix.description }
        switch (lower, upper) {
        case (nil, nil): return "*"
        case (let low?, nil): return (low.inclusive ? ">=" : ">") + low.version.description
        case (nil, let high?): return (high.inclusive ? "<=" : "<") + high.version.description
        case (let low?, let high?):
            if low.inclusive && high.inclusive && low.version == high.version { return "==\(low.version)" }
            if low.inclusive { return "\(low.version)\(high.inclusive ? "..." : "..<")\(high.version)" }
            return ">\(low.version), \(high.inclusive ? "<=" : "<")\(high.version)"
        }
    }
}

/// A version range or agent matcher that could not be read, and what was expected.
public struct VersionRangeSyntaxError: Error, Sendable, CustomStringConvertible {
    /// The text as written.
    public var text: String
    /// What is wrong and what was expected.
    public var problem: String

    public var description: String { "'\(text)': \(problem)" }
}
