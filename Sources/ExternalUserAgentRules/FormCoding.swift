// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// `application/x-www-form-urlencoded` and URL queries: the one encoder and the two decoders that the OAuth
/// client, the plugins and the testing kit's server share.
package enum FormCoding {
    /// Unreserved characters (`A-Z a-z 0-9 - . _ ~`) stay, a space is `+`, every other byte of the UTF-8 is
    /// `%XX` (RFC 6749 Appendix B; what browsers submit decodes the same).
    package static func escape(_ value: some StringProtocol) -> String {
        let hex = Array("0123456789ABCDEF".unicodeScalars)
        var result = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                result += "+"
            default:
                result += "%"
                result.unicodeScalars.append(hex[Int(byte >> 4)])
                result.unicodeScalars.append(hex[Int(byte & 0x0F)])
            }
        }
        return result
    }

    /// `name=value&…`, each part escaped.
    package static func encode(_ fields: [(String, String)]) -> String {
        fields.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    /// Decodes `%XX` escapes (as UTF-8) and `+` as a space, leniently: a `%` not followed by two hex digits
    /// stays as it is, and invalid UTF-8 becomes U+FFFD. For what this project's own peers wrote.
    package static func decode(_ text: some StringProtocol) -> String {
        String(decoding: bytes(text, strict: false)!, as: UTF8.self)
    }

    /// Decodes like `decode(_:)` but strictly: `nil` for a bad escape or invalid UTF-8. For what a
    /// stranger sent (a request to the loopback receiver).
    package static func strictDecode(_ text: some StringProtocol) -> String? {
        bytes(text, strict: true).flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// `name=value&…` split and strictly decoded, empty pieces skipped; `nil` when any part is malformed
    /// or a name is empty.
    package static func strictPairs(_ query: some StringProtocol) -> [(name: String, value: String)]? {
        var pairs: [(name: String, value: String)] = []
        for piece in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = strictDecode(parts[0]), !name.isEmpty else { return nil }
            guard let value = parts.count > 1 ? strictDecode(parts[1]) : "" else { return nil }
            pairs.append((name, value))
        }
        return pairs
    }

    private static func bytes(_ text: some StringProtocol, strict: Bool) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%") {
                if utf8.count >= 2, let high = hexValue(utf8[utf8.startIndex]),
                    let low = hexValue(utf8[utf8.startIndex + 1])
                {
                    bytes.append(high << 4 | low)
                    utf8 = utf8.dropFirst(2)
                } else if strict {
                    return nil
                } else {
                    bytes.append(byte)
                }
            } else {
                bytes.append(byte)
            }
        }
        return bytes
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
