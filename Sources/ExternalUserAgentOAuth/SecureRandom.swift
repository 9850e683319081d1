/// Random strings for PKCE verifiers, `state` and `nonce`, from the system's CSPRNG
/// (`SystemRandomNumberGenerator`: `getrandom(2)` on Linux).
enum SecureRandom {
    /// RFC 3986 unreserved characters, the alphabet RFC 7636 allows for a code verifier.
    static let unreserved = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    /// 64 URL-safe characters: 6 bits each.
    static let urlSafe = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    /// `length` characters drawn uniformly from `alphabet`.
    static func string(length: Int, alphabet: [Character] = urlSafe) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
    }

    /// A value with at least `bits` bits of entropy, in URL-safe characters.
    static func token(bits: Int = 256) -> String {
        string(length: (bits + 5) / 6)
    }
}
