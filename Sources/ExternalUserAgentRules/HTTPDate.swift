// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// The HTTP `Date` header's format (RFC 9110 §5.6.7, IMF-fixdate): `Sun, 06 Nov 1994 08:49:37 GMT`.
///
/// Only the format servers must send is read; the two obsolete ones are refused (`nil`), which for the
/// one use here — estimating how far this machine's clock is from a provider's — only loses the estimate.
/// Linear, and never traps on any input (a fuzz target feeds it).
public enum HTTPDate {
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    static let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// Seconds since 1970-01-01T00:00:00Z, or `nil` when `text` is not an IMF-fixdate.
    public static func secondsSince1970(_ text: String) -> Int64? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard text.utf8.count == 29, parts.count == 6, parts[5] == "GMT", parts[0].count == 4, parts[0].hasSuffix(","),
            days.contains(String(parts[0].dropLast())), let month = months.firstIndex(of: String(parts[2])),
            let day = number(parts[1], digits: 2), let year = number(parts[3], digits: 4)
        else { return nil }
        let clock = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, let hour = number(clock[0], digits: 2), let minute = number(clock[1], digits: 2),
            let second = number(clock[2], digits: 2), hour < 24, minute < 60, second <= 60,
            day >= 1, day <= daysIn(month: month + 1, year: year)
        else { return nil }
        let days = daysFromCivil(year: year, month: month + 1, day: day)
        return days * 86_400 + hour * 3600 + minute * 60 + second
    }

    private static func number(_ text: Substring, digits: Int) -> Int64? {
        guard text.utf8.count == digits, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return text.utf8.reduce(0) { $0 * 10 + Int64($1 - 0x30) }
    }

    private static func daysIn(month: Int, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the given proleptic Gregorian date (Howard Hinnant's algorithm); also what the
    /// headless agent's cookie dates (RFC 6265 §5.1.1) are counted with.
    package static func daysFromCivil(year: Int64, month: Int, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
