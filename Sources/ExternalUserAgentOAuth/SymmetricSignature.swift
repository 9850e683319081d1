// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import ExternalUserAgentCore

/// The two signatures of a JWS that need no key set: an HMAC with the client secret (`HS256`, `HS384`,
/// `HS512`; RFC 7518 §3.2) and the empty signature of an unsigned token (`none`; RFC 7518 §3.6).
enum SymmetricSignature {
    /// Checks the HMAC of `token` (`header.payload.signature`) with `secret`'s UTF-8 octets, in constant time.
    static func verify(_ token: String, alg: String, secret: String, what: String) throws {
        let (input, signature) = try parts(of: token, what: what)
        let key = SymmetricKey(data: Data(secret.utf8))
        let valid =
            switch alg {
            case "HS256": HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: input, using: key)
            case "HS384": HMAC<SHA384>.isValidAuthenticationCode(signature, authenticating: input, using: key)
            case "HS512": HMAC<SHA512>.isValidAuthenticationCode(signature, authenticating: input, using: key)
            default: false
            }
        guard valid else {
            throw IDTokenValidator.invalid(
                "\(what)'s \(alg) signature does not verify with the client secret: either "
                    + "the token was altered or the secret given is not the one the provider has for this client")
        }
    }

    /// Checks that an unsigned token's signature part is empty, as RFC 7519 §6.1 requires.
    static func checkUnsigned(_ token: String, what: String) throws {
        let (_, signature) = try parts(of: token, what: what)
        guard signature.isEmpty else {
            throw IDTokenValidator.invalid(
                "\(what) says alg none but carries a signature; an unsigned token has an "
                    + "empty third part (RFC 7519 §6.1)")
        }
    }

    /// Makes the HMAC signature of `input` (`header.payload`) for a token the client signs itself.
    static func sign(_ input: String, alg: String, secret: String) -> String? {
        let key = SymmetricKey(data: Data(secret.utf8))
        let data = Data(input.utf8)
        return switch alg {
        case "HS256": Base64URL.encode(Data(HMAC<SHA256>.authenticationCode(for: data, using: key)))
        case "HS384": Base64URL.encode(Data(HMAC<SHA384>.authenticationCode(for: data, using: key)))
        case "HS512": Base64URL.encode(Data(HMAC<SHA512>.authenticationCode(for: data, using: key)))
        default: nil
        }
    }

    /// The signing input (`header.payload`) and the decoded signature (``signingInput(of:)``).
    private static func parts(of token: String, what: String) throws -> (Data, Data) {
        guard let parts = signingInput(of: token) else {
            throw IDTokenValidator.invalid("\(what)'s signature is not base64url")
        }
        return parts
    }

    /// A compact JWS's signing input (`header.payload`) and its decoded signature, for every signature check
    /// (this one and ``AsymmetricSignature``); `nil` when the signature part is not base64url.
    static func signingInput(of token: String) -> (input: Data, signature: Data)? {
        guard let dot = token.lastIndex(of: "."), let signature = Base64URL.decode(token[token.index(after: dot)...])
        else {
            return nil
        }
        return (Data(token[..<dot].utf8), signature)
    }
}
