// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// Checks that a document is UTF-8 before it is read: TOML text must be, and reading it any other way
/// would turn bytes into U+FFFD silently.
extension TOMLScanner {
    /// The offset of the first byte that does not start a well-formed UTF-8 sequence (RFC 3629: no overlong
    /// forms, no surrogates, nothing above U+10FFFF, nothing cut short), or `nil` when all of `bytes` is UTF-8.
    static func firstInvalidUTF8(in bytes: [UInt8]) -> Int? {
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var second: ClosedRange<UInt8> = 0x80...0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                second = 0xA0...0xBF
            case 0xED:
                length = 3
                second = 0x80...0x9F
            case 0xE1...0xEF: length = 3
            case 0xF0:
                length = 4
                second = 0x90...0xBF
            case 0xF4:
                length = 4
                second = 0x80...0x8F
            case 0xF1...0xF3: length = 4
            default: return index
            }
            guard index + length <= bytes.count, second.contains(bytes[index + 1]) else { return index }
            for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 { return index }
            index += length
        }
        return nil
    }

    /// The error for the invalid byte at `offset`, with its line and column.
    func invalidUTF8Error(at offset: Int) -> TOMLSyntaxError {
        let byte = "0x" + (bytes[offset] < 0x10 ? "0" : "") + String(bytes[offset], radix: 16, uppercase: true)
        return error(
            "expected UTF-8 text, found the byte \(byte), which is not UTF-8 (save the file as UTF-8; "
                + "for a Latin-1 file: iconv -f LATIN1 -t UTF-8)", at: offset)
    }
}
