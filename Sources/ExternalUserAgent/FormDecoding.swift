/// Decodes `%XX` escapes (as UTF-8) and `+` as a space, as form encoding writes them; a `%` not followed
/// by two hex digits stays as it is. Shared by the OAuth client and the testing kit's server.
package func formDecode(_ text: some StringProtocol) -> String {
    var bytes: [UInt8] = []
    var utf8 = Array(text.utf8)[...]
    func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
    while let byte = utf8.popFirst() {
        if byte == UInt8(ascii: "+") {
            bytes.append(UInt8(ascii: " "))
        } else if byte == UInt8(ascii: "%"), utf8.count >= 2, let high = hex(utf8[utf8.startIndex]),
                  let low = hex(utf8[utf8.startIndex + 1]) {
            bytes.append(high << 4 | low)
            utf8 = utf8.dropFirst(2)
        } else {
            bytes.append(byte)
        }
    }
    return String(decoding: bytes, as: UTF8.self)
}
