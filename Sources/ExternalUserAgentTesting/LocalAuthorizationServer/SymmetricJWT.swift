// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto

/// The JWTs a local server makes without a key pair: unsigned (`none`, RFC 7519 §6) and HMAC-SHA-256
/// with the client secret (`HS256`, OpenID Connect Core §10.1).
enum SymmetricJWT {
    /// `payload` as a compact JWS: `header.payload.` for `none`, `header.payload.HMAC` for `HS256`.
    static func make(
        _ payload: some Encodable, algorithm: LocalAuthorizationServerOptions.KeylessAlgorithm,
        secret: String?
    ) throws -> String {
        let input = try SigningKey.signingInput(header: ["alg": algorithm.rawValue, "typ": "JWT"], claims: payload)
        switch algorithm {
        case .none:
            return input + "."
        case .hs256:
            guard let secret else {
                throw LocalAuthorizationServerError("HS256 ID tokens need a client secret; set clientSecret")
            }
            let mac = HMAC<SHA256>.authenticationCode(
                for: Data(input.utf8), using: SymmetricKey(data: Data(secret.utf8)))
            return input + "." + SigningKey.base64URL(Data(mac))
        }
    }
}
