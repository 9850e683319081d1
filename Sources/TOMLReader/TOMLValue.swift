// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// A value read from a TOML document: what a key or an array element holds.
///
/// Dates and times are kept as written: the configuration schema takes none, so they only need
/// to be recognised (and named in a type error).
package enum TOMLValue: Sendable, Equatable {
    case table(TOMLTable)
    case array([TOMLValue])
    case string(String)
    case integer(Int)
    case float(Double)
    case bool(Bool)
    /// An offset or local date-time (`1979-05-27T07:32:00Z`, `1979-05-27 07:32:00`).
    case dateTime(String)
    /// A local date (`1979-05-27`).
    case date(String)
    /// A local time (`07:32:00.5`).
    case time(String)

    /// What sort of value this is, for messages: `a table`, `an integer`, `a date-time`.
    package var typeName: String {
        switch self {
        case .table: "a table"
        case .array: "an array"
        case .string: "a string"
        case .integer: "an integer"
        case .float: "a floating-point number"
        case .bool: "a boolean"
        case .dateTime: "a date-time"
        case .date: "a date"
        case .time: "a time"
        }
    }
}
