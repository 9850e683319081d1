// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore
@testable import ExternalUserAgentOAuth
import Foundation
import JWTKit
import Testing

/// The ID token's signature is checked with swift-crypto; jwt-kit, an independent implementation, signs the
/// tokens here, so each algorithm is checked against someone else's signatures — and broken keys and
/// signatures are refused with what is wrong.
@Suite("ID token signatures: every accepted algorithm against jwt-kit's, and broken keys and signatures")
struct IDTokenSignatureTests {
    private func validate(_ token: String, _ jwk: J) async throws -> IDTokenClaims {
        try await UntrustedInput.idToken(
            Data(token.utf8), keySet: TestKeys.keySet(jwk), issuer: TestKeys.issuer,
            clientID: TestKeys.clientID, nonce: TestKeys.nonce, now: Date())
    }

    private func sign(_ keys: JWTKeyCollection, alg: String, kid: String = "k") async throws -> String {
        var header = JWTHeader()
        header.alg = alg
        header.kid = JWKIdentifier(string: kid).string
        return try await keys.sign(AnyClaims(TestKeys.claims()), header: header)
    }

    private func rsaJWK(alg: String) -> J {
        let primitives = try! TestKeys.rsa.publicKey.getKeyPrimitives()
        return [
            "kty": "RSA", "kid": "k", "alg": .string(alg), "n": .string(TestKeys.base64URL(primitives.modulus)),
            "e": .string(TestKeys.base64URL(primitives.publicExponent)),
        ]
    }

    @Test(
        "RS256/384/512 and PS256/384/512 signed by jwt-kit verify",
        arguments: [
            ("RS256", false, DigestAlgorithm.sha256), ("RS384", false, .sha384), ("RS512", false, .sha512),
            ("PS256", true, .sha256), ("PS384", true, .sha384), ("PS512", true, .sha512),
        ])
    func rsa(_ alg: String, _ pss: Bool, _ digest: DigestAlgorithm) async throws {
        let keys = JWTKeyCollection()
        if pss {
            await keys.add(pss: TestKeys.rsa, digestAlgorithm: digest, kid: "k")
        } else {
            await keys.add(rsa: TestKeys.rsa, digestAlgorithm: digest, kid: "k")
        }
        let token = try await sign(keys, alg: alg)
        #expect(try await validate(token, rsaJWK(alg: alg)).subject == "alice")
    }

    @Test("ES256, ES384 and ES512 signed by jwt-kit verify; a flipped bit or a signature of the wrong length does not")
    func ecdsa() async throws {
        let cases: [(String, String, String, String, JWTKeyCollection)] = try await {
            let p256 = ES256PrivateKey()
            let p384 = ES384PrivateKey()
            let p521 = ES512PrivateKey()
            let (k256, k384, k521) = (JWTKeyCollection(), JWTKeyCollection(), JWTKeyCollection())
            await k256.add(ecdsa: p256, kid: "k")
            await k384.add(ecdsa: p384, kid: "k")
            await k521.add(ecdsa: p521, kid: "k")
            return [
                ("ES256", "P-256", try #require(p256.parameters).x, try #require(p256.parameters).y, k256),
                ("ES384", "P-384", try #require(p384.parameters).x, try #require(p384.parameters).y, k384),
                ("ES512", "P-521", try #require(p521.parameters).x, try #require(p521.parameters).y, k521),
            ]
        }()
        for (alg, curve, x, y, keys) in cases {
            let jwk: J = ["kty": "EC", "crv": .string(curve), "kid": "k", "x": .string(x), "y": .string(y)]
            let token = try await sign(keys, alg: alg)
            #expect(try await validate(token, jwk).subject == "alice", "\(alg)")
            let dot = token.lastIndex(of: ".")!
            var signature = Base64URL.decode(token[token.index(after: dot)...])!
            signature[signature.count / 2] ^= 1
            await expectRefused(
                String(token[...dot]) + Base64URL.encode(signature), jwk,
                says: ["\(alg) signature does not verify", "not this key's"])
            await expectRefused(
                String(token[...dot]) + Base64URL.encode(signature.dropLast()), jwk,
                says: ["bytes, not the \(signature.count) of R and S"])
        }
    }

    @Test("keys that cannot be a public key are named as such, never a signature mismatch")
    func brokenKeys() async throws {
        let keys = JWTKeyCollection()
        await keys.add(rsa: TestKeys.rsa, digestAlgorithm: .sha256, kid: "k")
        let token = try await sign(keys, alg: "RS256")
        let short: J = [
            "kty": "RSA", "kid": "k", "n": .string(TestKeys.base64URL(Data(repeating: 0xC5, count: 128))), "e": "AQAB",
        ]
        await expectRefused(token, short, says: ["cannot be used", "at least 2048 bits (1024-bit modulus given)"])
        let noE: J = ["kty": "RSA", "kid": "k", "n": "AQAB"]
        await expectRefused(token, noE, says: ["cannot be used", "n or e is missing or not base64url"])

        let ec = try await sign(await TestKeys.ecKeys, alg: "ES256")
        let parameters = try #require(TestKeys.ec.parameters)
        let shortX: J = [
            "kty": "EC", "crv": "P-256", "kid": "k", "x": .string(String(parameters.x.dropLast(4))),
            "y": .string(parameters.y),
        ]
        await expectRefused(ec, shortX, says: ["cannot be used", "29 and 32 bytes, not 32 each"])
        let offCurve: J = [
            "kty": "EC", "crv": "P-256", "kid": "k", "x": .string(parameters.x),
            "y": .string(TestKeys.base64URL(Data(repeating: 7, count: 32))),
        ]
        await expectRefused(ec, offCurve, says: ["cannot be used", "not a point on the curve"])
    }

    private func expectRefused(
        _ token: String, _ jwk: J, says: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        do {
            _ = try await validate(token, jwk)
            Issue.record("accepted", sourceLocation: sourceLocation)
        } catch let error as ExternalUserAgentError {
            #expect(error.code == .idTokenInvalid, sourceLocation: sourceLocation)
            for text in says {
                #expect(error.message.contains(text), "\(error.message)", sourceLocation: sourceLocation)
            }
        } catch {
            Issue.record("\(error)", sourceLocation: sourceLocation)
        }
    }
}

extension TestKeys {
    /// The fixed EC key, as jwt-kit's signer with kid `k`.
    static var ecKeys: JWTKeyCollection {
        get async {
            let keys = JWTKeyCollection()
            await keys.add(ecdsa: ec, kid: "k")
            return keys
        }
    }
}
