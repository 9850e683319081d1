// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// JSON text read by hand into ``JSONValue``, for what crosses the plugin ABI (descriptions, requests, events,
/// options): the counterpart of `JSONWriting.swift`, and for the same reason — `JSONDecoder` makes the Swift
/// runtime instantiate generic containers for every `Codable` type it meets, once per copy of this module, so
/// each plugin in a process paid it again (Benchmarks/README.md, "Levers").
///
/// Strict RFC 8259: one value with optional whitespace around it; no comments, trailing commas, `NaN`, leading
/// zeros or lone surrogates; a number must fit a finite `Double` (and not be so small that it reads as zero); a member name may appear once per object;
/// at most ``maximumDepth`` nested arrays and objects. One pass over the text (linear), fuzzed by
/// `FuzzPluginJSON` against `JSONDecoder`.
extension JSONValue {
    /// The deepest nesting of arrays and objects accepted.
    public static let maximumDepth = 64

    /// Parses `text` as one JSON value.
    public init(parsing text: String) throws(JSONSyntaxError) {
        try self.init(parsing: text, hugeNumbers: false)
    }

    /// Parses `text`; with `hugeNumbers`, a number beyond a `Double` is read as an infinite one instead of refused
    /// (the OAuth client's field rules then name the field it is in).
    package init(parsing text: String, hugeNumbers: Bool) throws(JSONSyntaxError) {
        var text = text
        let result = text.withUTF8 { bytes in
            Result { () throws(JSONSyntaxError) -> JSONValue in
                var reader = JSONReader(bytes: bytes, hugeNumbers: hugeNumbers)
                reader.skipWhitespace()
                let value = try reader.value(depth: 0)
                reader.skipWhitespace()
                guard reader.offset == bytes.count else { throw reader.error("text after the value") }
                return value
            }
        }
        self = try result.get()
    }
}

/// Why a text is not JSON: what, and at which byte (counted from 0).
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The byte offset where reading stopped.
    public var offset: Int
    /// What was wrong there.
    public var problem: String

    /// `problem at byte N`.
    public var description: String { "\(problem) at byte \(offset)" }
}

/// One pass over UTF-8 bytes (valid UTF-8: they come from a Swift `String`).
private struct JSONReader {
    let bytes: UnsafeBufferPointer<UInt8>
    /// Whether a number beyond a `Double` is read as infinite rather than refused.
    let hugeNumbers: Bool
    var offset = 0

    init(bytes: UnsafeBufferPointer<UInt8>, hugeNumbers: Bool) {
        self.bytes = bytes
        self.hugeNumbers = hugeNumbers
    }

    func error(_ problem: String) -> JSONSyntaxError { JSONSyntaxError(offset: offset, problem: problem) }

    var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { offset += 1 }
    }

    mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard let byte = current else { throw error("the text ends where a value should be") }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("not the start of a JSON value")
        }
    }

    mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let count = word.utf8CodeUnitCount
        guard bytes.count - offset >= count,
            (0..<count).allSatisfy({ bytes[offset + $0] == word.utf8Start[$0] })
        else {
            throw error("not the start of a JSON value")
        }
        offset += count
    }

    mutating func object(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth <= JSONValue.maximumDepth else {
            throw error("more than \(JSONValue.maximumDepth) nested arrays and objects")
        }
        offset += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            offset += 1
            return .object(members)
        }
        while true {
            guard current == UInt8(ascii: "\"") else { throw error("a member name (a string) expected") }
            let nameOffset = offset
            let name = try string()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("':' expected after a member name") }
            offset += 1
            skipWhitespace()
            let value = try value(depth: depth)
            guard members.updateValue(value, forKey: name) == nil else {
                throw JSONSyntaxError(offset: nameOffset, problem: "a member name given twice in one object")
            }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                offset += 1
                skipWhitespace()
            case UInt8(ascii: "}"):
                offset += 1
                return .object(members)
            default: throw error("',' or '}' expected in an object")
            }
        }
    }

    mutating func array(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth <= JSONValue.maximumDepth else {
            throw error("more than \(JSONValue.maximumDepth) nested arrays and objects")
        }
        offset += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            offset += 1
            return .array(elements)
        }
        while true {
            elements.append(try value(depth: depth))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                offset += 1
                skipWhitespace()
            case UInt8(ascii: "]"):
                offset += 1
                return .array(elements)
            default: throw error("',' or ']' expected in an array")
            }
        }
    }

    mutating func string() throws(JSONSyntaxError) -> String {
        offset += 1
        var text = ""
        var runStart = offset
        while true {
            guard let byte = current else { throw error("the text ends inside a string") }
            switch byte {
            case UInt8(ascii: "\""):
                text += String(decoding: UnsafeBufferPointer(rebasing: bytes[runStart..<offset]), as: UTF8.self)
                offset += 1
                return text
            case UInt8(ascii: "\\"):
                text += String(decoding: UnsafeBufferPointer(rebasing: bytes[runStart..<offset]), as: UTF8.self)
                text.unicodeScalars.append(try escape())
                runStart = offset
            case 0..<0x20:
                throw error("a control character inside a string (it must be escaped)")
            default:
                offset += 1
            }
        }
    }

    /// `\` and what follows, as one Unicode scalar (a surrogate pair as one).
    mutating func escape() throws(JSONSyntaxError) -> Unicode.Scalar {
        offset += 1
        guard let byte = current else { throw error("the text ends inside a string") }
        offset += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let first = try hexQuad()
            if (0xDC00...0xDFFF).contains(first) { throw error("a low surrogate (\\u) without a high one before it") }
            guard (0xD800...0xDBFF).contains(first) else { return Unicode.Scalar(first)! }
            guard bytes.count - offset >= 2, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u")
            else {
                throw error("a high surrogate (\\u) without a low one after it")
            }
            offset += 2
            let second = try hexQuad()
            guard (0xDC00...0xDFFF).contains(second) else {
                throw error("a high surrogate (\\u) without a low one after it")
            }
            return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!
        default:
            offset -= 1
            throw error("an unknown escape in a string")
        }
    }

    mutating func hexQuad() throws(JSONSyntaxError) -> UInt32 {
        guard bytes.count - offset >= 4 else { throw error("four hex digits expected after \\u") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("four hex digits expected after \\u")
            }
            value = value << 4 | UInt32(digit)
            offset += 1
        }
        return value
    }

    /// RFC 8259 §6: `-? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?`, finite as a `Double`.
    mutating func number() throws(JSONSyntaxError) -> Double {
        let start = offset
        if current == UInt8(ascii: "-") { offset += 1 }
        if current == UInt8(ascii: "0") {
            offset += 1
        } else {
            guard digits() > 0 else { throw error("a digit expected in a number") }
        }
        if current == UInt8(ascii: ".") {
            offset += 1
            guard digits() > 0 else { throw error("a digit expected after '.' in a number") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            offset += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { offset += 1 }
            guard digits() > 0 else { throw error("a digit expected in a number's exponent") }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
        guard let value = Double(text), value.isFinite || hugeNumbers else {
            throw JSONSyntaxError(offset: start, problem: "a number too large for a 64-bit floating-point value")
        }
        // Not zero, yet so small that it would read as zero: refused rather than changed (as JSONDecoder does).
        if value == 0,
            text.utf8.prefix(while: { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") })
                .contains(where: { (UInt8(ascii: "1")...UInt8(ascii: "9")).contains($0) })
        {
            throw JSONSyntaxError(offset: start, problem: "a number too small for a 64-bit floating-point value")
        }
        return value
    }

    /// Skips decimal digits; how many there were.
    mutating func digits() -> Int {
        let start = offset
        while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { offset += 1 }
        return offset - start
    }
}
