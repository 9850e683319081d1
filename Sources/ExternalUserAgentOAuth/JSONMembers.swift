// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentABI

/// The members of one JSON object as this package writes it (the saved state, `eua login --json`), set by
/// the type's own `CodingKeys`: each type says once, in its `jsonValue()`, what it writes, and its
/// `encode(to:)` writes that same value — so nothing on the sign-in's path needs `JSONEncoder` (whose generic
/// set-up was about 5 % of a login's CPU, measured), and `Codable` users get the same JSON.
///
/// A `nil` value leaves its member out, as `encodeIfPresent` does.
struct JSONMembers<Key: CodingKey> {
    private(set) var members: [String: JSONValue] = [:]

    init() {}

    mutating func set(_ key: Key, _ value: JSONValue?) {
        if let value { members[key.stringValue] = value }
    }

    mutating func set(_ key: Key, _ value: String?) { set(key, value.map(JSONValue.string)) }

    mutating func set(_ key: Key, _ value: Bool?) { set(key, value.map(JSONValue.bool)) }

    /// A whole number; JSON numbers here are doubles, exact up to 2^53 (no count or lifetime comes near).
    mutating func set(_ key: Key, _ value: Int?) { set(key, value.map { JSONValue.number(Double($0)) }) }

    mutating func set(_ key: Key, _ value: Double?) { set(key, value.map(JSONValue.number)) }

    mutating func set(_ key: Key, _ value: [String]?) {
        set(key, value.map { JSONValue.array($0.map(JSONValue.string)) })
    }

    /// A URL as its absolute string, as `JSONEncoder` writes one.
    mutating func set(_ key: Key, _ value: URL?) { set(key, value?.absoluteString) }

    /// The object.
    var object: JSONValue { .object(members) }
}
