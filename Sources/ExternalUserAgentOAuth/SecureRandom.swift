// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// Random strings for PKCE verifiers, `state` and `nonce`, from the system's CSPRNG (`getrandom(2)` on Linux).
enum SecureRandom {
    /// RFC 3986 unreserved characters, the alphabet RFC 7636 allows for a code verifier.
    static let unreserved = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    /// 64 URL-safe characters: 6 bits each.
    static let urlSafe = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    /// `length` characters drawn uniformly from `alphabet` (1 to 256 characters).
    ///
    /// Each 64-bit draw (one `getrandom` call on Linux) gives eight characters' bytes: a draw per character
    /// cost a system call per character, 184 of a sign-in's 900.
    static func string(length: Int, alphabet: [Character] = urlSafe) -> String {
        precondition(!alphabet.isEmpty && alphabet.count <= 256, "an alphabet of 1 to 256 characters")
        // A byte below `accepted` maps to `alphabet[byte % count]` with equal odds for every character; the
        // rest are dropped (none when the count divides 256, 58 of 256 for the 66 unreserved characters).
        let accepted = 256 - 256 % alphabet.count
        var characters: [Character] = []
        characters.reserveCapacity(length)
        while characters.count < length {
            let wanted = length - characters.count
            let draw = accepted == 256 ? wanted : wanted + wanted / 2 + 8  // enough, most of the time, for one round
            for byte in bytes(draw) where Int(byte) < accepted && characters.count < length {
                characters.append(alphabet[Int(byte) % alphabet.count])
            }
        }
        return String(characters)
    }

    /// A value with at least `bits` bits of entropy, in URL-safe characters.
    static func token(bits: Int = 256) -> String {
        string(length: (bits + 5) / 6)
    }

    /// `count` bytes from the system's CSPRNG, all eight of each 64-bit draw used.
    static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 7)
        while bytes.count < count {
            withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) }
        }
        return Array(bytes.prefix(count))
    }
}
