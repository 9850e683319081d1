// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// Booleans, numbers, dates and times: the values that are one bare word.
extension TOMLScanner {
    private static let valueKinds = "a string, number, true or false, date, array or inline table"

    /// Reads a value that is not a string, array or inline table.
    ///
    /// The word runs to whitespace, a comma, `]`, `}`, `#` or the line's end; a date followed by a space
    /// and a time is one date-time (`1979-05-27 07:32:00`).
    mutating func scalar() throws(TOMLSyntaxError) -> TOMLValue {
        let start = index
        skipWord()
        if index - start == 10, Self.isDate(bytes[start..<index]), current == .space,
            byte(ahead: 1)?.isASCIIDigit == true, byte(ahead: 2)?.isASCIIDigit == true,
            byte(ahead: 3) == UInt8(ascii: ":")
        {
            index += 1
            skipWord()
        }
        let word = Array(bytes[start..<index])
        guard let first = word.first else {
            throw error("expected a value (\(Self.valueKinds)), found \(found())")
        }
        if word.elementsEqual("true".utf8) { return .bool(true) }
        if word.elementsEqual("false".utf8) { return .bool(false) }
        if word.count >= 5, Self.isDigits(word[0..<4]), word[4] == UInt8(ascii: "-") {
            return try dateTime(word, at: start)
        }
        if word.count >= 3, Self.isDigits(word[0..<2]), word[2] == UInt8(ascii: ":") {
            return try time(word, at: start)
        }
        if first.isASCIIDigit || first == UInt8(ascii: "+") || first == UInt8(ascii: "-")
            || word.elementsEqual("inf".utf8) || word.elementsEqual("nan".utf8)
        {
            return try number(word, at: start)
        }
        let shown = Self.display(word)
        let looksLikeText = word.allSatisfy(\.isBareKey) && !"true".hasPrefix(shown) && !"false".hasPrefix(shown)
        let quotesHint = looksLikeText ? " (a string needs quotes: \"\(shown)\")" : ""
        throw error("expected a value (\(Self.valueKinds)), found '\(shown)'\(quotesHint)", at: start)
    }

    private mutating func skipWord() {
        while let byte = current {
            switch byte {
            case .space, .tab, .lineFeed, .carriageReturn, .hash, UInt8(ascii: ","), UInt8(ascii: "]"),
                UInt8(ascii: "}"):
                return
            default:
                index += 1
            }
        }
    }

    // MARK: - Numbers

    /// Reads an integer (`42`, `-1_000`, `0xff`, `0o755`, `0b1010`) or a float (`3.14`, `1e6`, `-inf`, `nan`).
    private func number(_ word: [UInt8], at start: Int) throws(TOMLSyntaxError) -> TOMLValue {
        var shown: String { Self.display(word) }
        var invalid: TOMLSyntaxError {
            error("expected a number (like 42, -1_000, 0xff, 3.14, 1e-6 or inf), found '\(shown)'", at: start)
        }
        var sign = 0
        var negative = false
        if word[0] == UInt8(ascii: "+") || word[0] == UInt8(ascii: "-") {
            negative = word[0] == UInt8(ascii: "-")
            sign = 1
        }
        let body = word[sign...]
        if body.elementsEqual("inf".utf8) { return .float(negative ? -.infinity : .infinity) }
        if body.elementsEqual("nan".utf8) { return .float(.nan) }

        if body.count > 2, body.first == UInt8(ascii: "0"), let radix = Self.radix(prefix: body[sign + 1]) {
            guard sign == 0 else {
                throw error(
                    "expected no sign before a hexadecimal, octal or binary integer, found '\(shown)'", at: start)
            }
            guard Self.digitRun(word, from: 2, radix: radix) == word.count else { throw invalid }
            return try integer(word[2...], radix: radix, negative: false, word: word, at: start)
        }

        guard let integerEnd = Self.digitRun(word, from: sign, radix: 10) else { throw invalid }
        if word[sign] == UInt8(ascii: "0"), integerEnd > sign + 1 {
            throw error("expected a number without leading zeros, found '\(shown)'", at: start)
        }
        var end = integerEnd
        if end < word.count, word[end] == .dot {
            guard let fractionEnd = Self.digitRun(word, from: end + 1, radix: 10) else { throw invalid }
            end = fractionEnd
        }
        if end < word.count, word[end] | 0x20 == UInt8(ascii: "e") {
            var exponent = end + 1
            if exponent < word.count, word[exponent] == UInt8(ascii: "+") || word[exponent] == UInt8(ascii: "-") {
                exponent += 1
            }
            guard let exponentEnd = Self.digitRun(word, from: exponent, radix: 10) else { throw invalid }
            end = exponentEnd
        }
        guard end == word.count else { throw invalid }
        guard end == integerEnd else {
            let digits = String(decoding: word.filter { $0 != UInt8(ascii: "_") }, as: UTF8.self)
            guard let value = Double(digits), value.isFinite else {
                throw error("expected a floating-point number within range, found '\(shown)'", at: start)
            }
            return .float(value)
        }
        return try integer(word[sign...], radix: 10, negative: negative, word: word, at: start)
    }

    /// The value of digits (with underscores) already checked, or an error if it does not fit in 64 bits.
    private func integer(
        _ digits: ArraySlice<UInt8>, radix: Int, negative: Bool, word: [UInt8],
        at start: Int
    ) throws(TOMLSyntaxError) -> TOMLValue {
        var magnitude: UInt64 = 0
        var overflow = false
        for byte in digits {
            guard let digit = byte.digitValue(radix: radix) else { continue }
            let (shifted, o1) = magnitude.multipliedReportingOverflow(by: UInt64(radix))
            let (sum, o2) = shifted.addingReportingOverflow(UInt64(digit))
            magnitude = sum
            overflow = overflow || o1 || o2
        }
        let limit = UInt64(Int64.max) + (negative ? 1 : 0)
        guard !overflow, magnitude <= limit else {
            throw error(
                "expected an integer from -9223372036854775808 to 9223372036854775807, found '\(Self.display(word))'",
                at: start)
        }
        return .integer(negative ? Int(truncatingIfNeeded: 0 &- magnitude) : Int(magnitude))
    }

    /// The radix of an integer written `0x…`, `0o…` or `0b…`, from the letter after the `0`.
    private static func radix(prefix letter: UInt8) -> Int? {
        switch letter {
        case UInt8(ascii: "x"): 16
        case UInt8(ascii: "o"): 8
        case UInt8(ascii: "b"): 2
        default: nil
        }
    }

    /// The end of the digits of `radix` starting at `start`, each underscore between two digits;
    /// `nil` if there is no digit at `start` or an underscore is misplaced.
    private static func digitRun(_ word: [UInt8], from start: Int, radix: Int) -> Int? {
        guard start < word.count, word[start].digitValue(radix: radix) != nil else { return nil }
        var end = start + 1
        while end < word.count {
            if word[end].digitValue(radix: radix) != nil {
                end += 1
            } else if word[end] == UInt8(ascii: "_") {
                guard end + 1 < word.count, word[end + 1].digitValue(radix: radix) != nil else { return nil }
                end += 2
            } else {
                break
            }
        }
        return end
    }

    // MARK: - Dates and times

    /// Reads a local date (`1979-05-27`) or a local or offset date-time (`1979-05-27T07:32:00.5-07:00`).
    private func dateTime(_ word: [UInt8], at start: Int) throws(TOMLSyntaxError) -> TOMLValue {
        let text = String(decoding: word, as: UTF8.self)
        var shown: String { Self.display(word) }
        guard word.count >= 10, Self.isDate(word[0..<10]),
            let century = Self.twoDigits(word, 0), let yearInCentury = Self.twoDigits(word, 2),
            let month = Self.twoDigits(word, 5), let day = Self.twoDigits(word, 8), (1...12).contains(month),
            day >= 1, day <= Self.days(inMonth: month, year: century * 100 + yearInCentury)
        else {
            throw error("expected a valid date like 1979-05-27, found '\(shown)'", at: start)
        }
        if word.count == 10 { return .date(text) }
        var invalid: TOMLSyntaxError {
            error(
                "expected a valid date-time like 1979-05-27T07:32:00Z or 1979-05-27 07:32:00.5+02:00, found '\(shown)'",
                at: start)
        }
        guard word[10] == UInt8(ascii: "T") || word[10] == UInt8(ascii: "t") || word[10] == .space,
            var end = Self.timeEnd(word, from: 11)
        else { throw invalid }
        if end < word.count, word[end] | 0x20 == UInt8(ascii: "z") {
            end += 1
        } else if end < word.count, word[end] == UInt8(ascii: "+") || word[end] == UInt8(ascii: "-") {
            guard end + 6 == word.count, let hours = Self.twoDigits(word, end + 1), hours <= 23,
                word[end + 3] == UInt8(ascii: ":"), let minutes = Self.twoDigits(word, end + 4), minutes <= 59
            else {
                throw invalid
            }
            end += 6
        }
        guard end == word.count else { throw invalid }
        return .dateTime(text)
    }

    /// Reads a local time (`07:32:00`, `00:32:00.999999`).
    private func time(_ word: [UInt8], at start: Int) throws(TOMLSyntaxError) -> TOMLValue {
        guard Self.timeEnd(word, from: 0) == word.count else {
            throw error("expected a valid time like 07:32:00 or 07:32:00.25, found '\(Self.display(word))'", at: start)
        }
        return .time(String(decoding: word, as: UTF8.self))
    }

    /// The end of a valid `HH:MM:SS` with an optional fraction at `start`, or `nil`.
    private static func timeEnd(_ word: [UInt8], from start: Int) -> Int? {
        guard start + 8 <= word.count, let hours = twoDigits(word, start), hours <= 23,
            word[start + 2] == UInt8(ascii: ":"), let minutes = twoDigits(word, start + 3), minutes <= 59,
            word[start + 5] == UInt8(ascii: ":"), let seconds = twoDigits(word, start + 6), seconds <= 60
        else {
            return nil
        }
        var end = start + 8
        if end < word.count, word[end] == .dot {
            end += 1
            let digits = end
            while end < word.count, word[end].isASCIIDigit { end += 1 }
            if end == digits { return nil }
        }
        return end
    }

    /// Whether `text` is `DDDD-DD-DD` (digits and dashes only).
    private static func isDate(_ text: ArraySlice<UInt8>) -> Bool {
        let base = text.startIndex
        return text.count == 10 && isDigits(text[base..<(base + 4)]) && text[base + 4] == UInt8(ascii: "-")
            && isDigits(text[(base + 5)..<(base + 7)]) && text[base + 7] == UInt8(ascii: "-")
            && isDigits(text[(base + 8)..<(base + 10)])
    }

    private static func isDigits(_ text: ArraySlice<UInt8>) -> Bool { text.allSatisfy(\.isASCIIDigit) }

    private static func twoDigits(_ word: [UInt8], _ start: Int) -> Int? {
        guard start + 2 <= word.count, word[start].isASCIIDigit, word[start + 1].isASCIIDigit else { return nil }
        return Int(word[start] - 48) * 10 + Int(word[start + 1] - 48)
    }

    private static func days(inMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
