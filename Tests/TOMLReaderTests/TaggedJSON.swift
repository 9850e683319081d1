// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Foundation
@testable import TOMLReader

/// toml-test's expected value of a valid case: tables as JSON objects, arrays as JSON arrays, and each
/// scalar tagged with its type, its value always a string: `{"type": "integer", "value": "1"}`.
indirect enum TaggedJSON: Decodable, Equatable {
    case table([String: TaggedJSON])
    case array([TaggedJSON])
    case scalar(type: String, value: String)

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if var list = try? decoder.unkeyedContainer() {
            var elements: [TaggedJSON] = []
            while !list.isAtEnd { elements.append(try list.decode(TaggedJSON.self)) }
            self = .array(elements)
            return
        }
        let object = try decoder.container(keyedBy: Key.self)
        let keys = object.allKeys.map(\.stringValue)
        // As toml-test decides: an object of exactly `type` and `value`, both strings, is a scalar.
        if Set(keys) == ["type", "value"],
            let type = try? object.decode(String.self, forKey: Key(stringValue: "type")),
            let value = try? object.decode(String.self, forKey: Key(stringValue: "value"))
        {
            self = .scalar(type: type, value: value)
            return
        }
        var entries: [String: TaggedJSON] = [:]
        for key in object.allKeys { entries[key.stringValue] = try object.decode(TaggedJSON.self, forKey: key) }
        self = .table(entries)
    }

    /// How `value`, read at `path` (`a.b[2]`), differs from this expectation; `nil` when it does not.
    ///
    /// Values are compared as toml-test compares them: floats by value (`nan` by being NaN; the suite
    /// writes `-0.0` as `"0"`, so only an expected `-` is checked as a sign), date-times by the moment
    /// they name (`1979-05-27T07:32:00Z` is `1979-05-27t00:32:00-07:00`), everything else exactly.
    func difference(from value: TOMLValue, at path: String) -> String? {
        switch (self, value) {
        case (.table(let expected), .table(let table)):
            let extra = table.keys.filter { expected[$0] == nil }
            let missing = expected.keys.filter { table[$0] == nil }.sorted()
            if !missing.isEmpty || !extra.isEmpty {
                return "\(Self.shown(path)): expected keys \(expected.keys.sorted()), read \(table.keys) "
                    + "(missing \(missing), extra \(extra))"
            }
            for key in table.keys {
                if let difference = expected[key]!.difference(from: table[key]!, at: Self.join(path, key)) {
                    return difference
                }
            }
            return nil
        case (.array(let expected), .array(let elements)):
            guard expected.count == elements.count else {
                return "\(Self.shown(path)): expected \(expected.count) elements, read \(elements.count)"
            }
            for (index, element) in elements.enumerated() {
                if let difference = expected[index].difference(from: element, at: "\(path)[\(index)]") {
                    return difference
                }
            }
            return nil
        case (.scalar(let type, let expected), _):
            guard let read = Self.scalar(value, as: type) else {
                return "\(Self.shown(path)): expected \(type) \(expected), read \(value.typeName) \(value)"
            }
            return Self.equal(type, expected, read)
                ? nil : "\(Self.shown(path)): expected \(type) \(expected), read \(read)"
        default:
            return "\(Self.shown(path)): expected \(kind), read \(value.typeName) \(value)"
        }
    }

    private var kind: String {
        switch self {
        case .table: "a table"
        case .array: "an array"
        case .scalar(let type, _): type
        }
    }

    private static func join(_ path: String, _ key: String) -> String {
        path.isEmpty ? key.debugDescription : "\(path).\(key.debugDescription)"
    }

    private static func shown(_ path: String) -> String { path.isEmpty ? "the document" : path }

    /// The text of `value` if it is of toml-test's `type` (a date-time with an offset for `datetime`,
    /// without for `datetime-local`); `nil` if it is of another type.
    private static func scalar(_ value: TOMLValue, as type: String) -> String? {
        switch (type, value) {
        case ("string", .string(let text)): text
        case ("integer", .integer(let number)): String(number)
        case ("float", .float(let number)): number.isNaN ? "nan" : String(number)
        case ("bool", .bool(let truth)): String(truth)
        case ("datetime", .dateTime(let text)) where Moment(text)?.offsetMinutes != nil: text
        case ("datetime-local", .dateTime(let text)) where Moment(text)?.offsetMinutes == nil: text
        case ("date-local", .date(let text)), ("time-local", .time(let text)): text
        default: nil
        }
    }

    private static func equal(_ type: String, _ expected: String, _ read: String) -> Bool {
        switch type {
        case "float":
            if expected.hasSuffix("nan") { return read == "nan" }
            guard let want = Double(expected), let have = Double(read) else { return false }
            return want == have && (!expected.hasPrefix("-") || have.sign == .minus)
        case "datetime", "datetime-local", "date-local", "time-local":
            guard let want = Moment(expected), let have = Moment(read) else { return false }
            return want == have
        default:
            return expected == read
        }
    }
}

/// A date, time or date-time as toml-test compares them: an offset date-time by the instant it names,
/// the others field by field; fractions of a second to the nanosecond.
struct Moment: Equatable {
    /// Days since 1970-01-01, when there is a date.
    var day: Int?
    /// Seconds since midnight and nanoseconds, when there is a time; with an offset, moved to UTC.
    var second: Int?
    var nanosecond = 0
    /// Minutes east of UTC, only for an offset date-time; kept out of the comparison.
    var offsetMinutes: Int?

    /// Reads `1979-05-27`, `07:32:00.5`, `1979-05-27T07:32:00`, `1979-05-27 07:32:00.999-07:00`, `…t…z`.
    init?(_ written: String) {
        var text = Substring(written.uppercased().replacingOccurrences(of: " ", with: "T"))
        if let date = text.prefix(10).wholeMatch(of: /(\d{4})-(\d{2})-(\d{2})/) {
            day = Self.days(year: Int(date.1)!, month: Int(date.2)!, day: Int(date.3)!)
            text = text.dropFirst(10)
            if text.isEmpty { return }
            guard text.first == "T" else { return nil }
            text = text.dropFirst()
        }
        guard let time = text.prefixMatch(of: /(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?/) else { return nil }
        second = Int(time.1)! * 3600 + Int(time.2)! * 60 + Int(time.3)!
        nanosecond = Int(String((time.4 ?? "") + "000000000").prefix(9))!
        text = text[time.range.upperBound...]
        if text == "Z" {
            offsetMinutes = 0
        } else if let offset = text.wholeMatch(of: /([+-])(\d{2}):(\d{2})/) {
            offsetMinutes = (offset.1 == "-" ? -1 : 1) * (Int(offset.2)! * 60 + Int(offset.3)!)
        } else if !text.isEmpty {
            return nil
        }
        if let offsetMinutes, let second, let day {
            let instant = day * 86_400 + second - offsetMinutes * 60
            self.day = instant.floorDivided(by: 86_400)
            self.second = instant - self.day! * 86_400
        }
    }

    static func == (lhs: Moment, rhs: Moment) -> Bool {
        lhs.day == rhs.day && lhs.second == rhs.second && lhs.nanosecond == rhs.nanosecond
            && (lhs.offsetMinutes == nil) == (rhs.offsetMinutes == nil)
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    private static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = y.floorDivided(by: 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

extension Int {
    fileprivate func floorDivided(by divisor: Int) -> Int {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
