// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentRules
import FoundationEssentials

/// A cookie's `Expires` date by RFC 6265 §5.1.1's lenient algorithm (`Thu, 01 Jan 1970 00:00:00 GMT` and the
/// older forms servers still send): the first time, day of month, month name and year among its tokens.
package enum CookieDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The date, or `nil` when a part is missing or out of range (the attribute is then ignored).
    package static func parse(_ text: String) -> Date? {
        let tokens = text.split { !($0.isASCII && ($0.isLetter || $0.isNumber || $0 == ":")) }
        var time: (Int, Int, Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        for token in tokens.prefix(16) {
            if time == nil, let parsed = timeOfDay(token) {
                time = parsed
            } else if day == nil, (1...2).contains(token.count), let value = Int(token) {
                day = value
            } else if month == nil, token.count >= 3, let index = months.firstIndex(of: token.prefix(3).lowercased()) {
                month = index + 1
            } else if year == nil, (2...4).contains(token.count), let value = Int(token) {
                year =
                    value < 70 && token.count <= 2
                    ? value + 2000 : value < 100 && token.count <= 2 ? value + 1900 : value
            }
        }
        guard let (hour, minute, second) = time, let day, let month, let year, (1...31).contains(day), year >= 1601,
            year <= 9999, hour <= 23, minute <= 59, second <= 59
        else { return nil }
        let days = HTTPDate.daysFromCivil(year: Int64(year), month: month, day: Int64(day))
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return Date(timeIntervalSince1970: Double(seconds))
    }

    private static func timeOfDay(_ token: Substring) -> (Int, Int, Int)? {
        let parts = token.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ (1...2).contains($0.count) }),
            let hour = Int(parts[0]), let minute = Int(parts[1]), let second = Int(parts[2])
        else { return nil }
        return (hour, minute, second)
    }
}
