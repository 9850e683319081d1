// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// A dotted version number as browsers report it (`128.0.6613.84`, `115.9.1esr`), compared numerically.
///
/// Only the leading digits of each component count (`1esr` is `1`); missing components are zero, so
/// `120` equals `120.0.0`. Text that does not start with a number is not a version (`init` gives `nil`),
/// and a range never matches an unknown version.
public struct BrowserVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The numeric components, most significant first.
    public let components: [Int]

    /// A version from its numbers (`[128, 0, 1]`).
    public init(_ components: [Int]) {
        self.components = components
    }

    /// Parses `text`; `nil` when its first component is not a number.
    public init?(_ text: String) {
        var components: [Int] = []
        for part in text.trimmingWhitespace().split(separator: ".", omittingEmptySubsequences: false) {
            let digits = part.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, let value = Int(digits) else {
                if components.isEmpty { return nil }
                break
            }
            components.append(value)
            if digits.count != part.count { break }
        }
        guard !components.isEmpty else { return nil }
        self.components = components
    }

    public var description: String { components.map(String.init).joined(separator: ".") }

    public static func == (lhs: BrowserVersion, rhs: BrowserVersion) -> Bool { compare(lhs, rhs) == 0 }

    public func hash(into hasher: inout Hasher) {
        var trimmed = components
        while trimmed.last == 0 { trimmed.removeLast() }
        hasher.combine(trimmed)
    }

    public static func < (lhs: BrowserVersion, rhs: BrowserVersion) -> Bool { compare(lhs, rhs) < 0 }

    /// Whether `self` starts with every component of `prefix` (`120.0.6099` has prefix `120`).
    public func hasPrefix(_ prefix: BrowserVersion) -> Bool {
        prefix.components.indices.allSatisfy { index in
            (index < components.count ? components[index] : 0) == prefix.components[index]
        }
    }

    private static func compare(_ lhs: BrowserVersion, _ rhs: BrowserVersion) -> Int {
        for index in 0..<max(lhs.components.count, rhs.components.count) {
            let left = index < lhs.components.count ? lhs.components[index] : 0
            let right = index < rhs.components.count ? rhs.components[index] : 0
            if left != right { return left < right ? -1 : 1 }
        }
        return 0
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        let characters = Array(self)
        guard let first = characters.firstIndex(where: { !$0.isWhitespace }),
            let last = characters.lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(characters[first...last])
    }
}
