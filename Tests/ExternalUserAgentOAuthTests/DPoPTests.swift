// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Crypto
import ExternalUserAgentCore
@testable import ExternalUserAgentOAuth
import ExternalUserAgentTesting
import Foundation
import Testing

@Suite("DPoP (RFC 9449): the client's key and proofs, and the local server's verifier against hostile proofs")
struct DPoPTests {
    static let url = "https://id.example.com/token"
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func b64(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// A proof built by hand: `change` alters the header and claims before signing with `key`.
    static func proof(
        key: P256.Signing.PrivateKey = P256.Signing.PrivateKey(),
        change: (inout [String: Any], inout [String: Any]) -> Void = { _, _ in }
    ) throws -> String {
        let point = key.publicKey.x963Representation
        var header: [String: Any] = [
            "typ": "dpop+jwt", "alg": "ES256",
            "jwk": [
                "kty": "EC", "crv": "P-256", "x": b64(point.dropFirst().prefix(32)),
                "y": b64(point.suffix(32)),
            ],
        ]
        var claims: [String: Any] = [
            "jti": UUID().uuidString, "htm": "POST", "htu": url,
            "iat": now.timeIntervalSince1970,
        ]
        change(&header, &claims)
        let input =
            b64(try JSONSerialization.data(withJSONObject: header)) + "."
            + b64(try JSONSerialization.data(withJSONObject: claims))
        return input + "." + b64(try key.signature(for: Data(input.utf8)).rawRepresentation)
    }

    static func refusal(_ proof: String, accessToken: String? = nil, nonce: String? = nil) -> String? {
        var seen: Set<String> = []
        if case .failure(let refusal) = LocalDPoP.verify(
            proof, method: "POST", url: url, accessToken: accessToken,
            nonce: nonce, now: now, seen: &seen)
        {
            return refusal.reason
        }
        return nil
    }

    @Test("the client's proof passes the server's verifier, with the key's thumbprint; htu loses query and fragment")
    func clientProof() throws {
        let key = DPoPKey()
        let proof = try DPoPProof.make(
            key: key, method: "POST", url: URL(string: Self.url + "?a=1#f")!, nonce: "n1",
            accessToken: "at-1", now: Self.now)
        var seen: Set<String> = []
        let verified = try LocalDPoP.verify(
            proof, method: "POST", url: Self.url, accessToken: "at-1", nonce: "n1",
            now: Self.now, seen: &seen
        ).get()
        #expect(verified.thumbprint == key.thumbprint && verified.nonce == "n1")
        let header = try #require(proof.split(separator: ".").first.flatMap { Base64URL.decode($0) })
        #expect(!String(decoding: header, as: UTF8.self).contains("\"d\""), "the private key is not in the proof")
        #expect(!key.description.contains(Base64URL.encode(Data())) && key.description.hasPrefix("DPoP key "))
    }

    @Test("the key is saved as a private JWK and read back; a JWK whose x, y are not d's or a bad d is refused")
    func keyJWK() throws {
        let key = DPoPKey()
        let data = try JSONEncoder().encode(key)
        #expect(try JSONDecoder().decode(DPoPKey.self, from: data) == key)
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: String])
        object["x"] = DPoPKey().publicJWK["x"]?.stringValue
        #expect(throws: InvalidFieldError.self) {
            try JSONDecoder().decode(DPoPKey.self, from: JSONSerialization.data(withJSONObject: object))
        }
        object["d"] = "AAAA"
        #expect(throws: InvalidFieldError.self) {
            try JSONDecoder().decode(DPoPKey.self, from: JSONSerialization.data(withJSONObject: object))
        }
        #expect(throws: InvalidFieldError.self) {
            try JSONDecoder().decode(
                DPoPKey.self, from: Data(#"{"kty":"RSA","crv":"P-256","x":"","y":"","d":""}"#.utf8))
        }
    }

    @Test(
        "hostile proofs are refused by the server's verifier, each naming its check",
        arguments: [
            ("typ", "typ is not dpop+jwt"), ("alg", "alg is not ES256"), ("jwk", "jwk is not a P-256 public key"),
            ("d", "jwk holds a private key"), ("htm", "htm is not the request's method"),
            ("htu", "htu is not the request's URL"),
            ("htu-query", "htu is not the request's URL"), ("old", "iat is missing or not within 60 s of now"),
            ("future", "iat is missing or not within 60 s of now"), ("no-iat", "iat is missing"),
            ("no-jti", "jti is missing"),
        ])
    func hostile(_ fault: String, _ says: String) throws {
        let proof = try Self.proof { header, claims in
            switch fault {
            case "typ": header["typ"] = "JWT"
            case "alg": header["alg"] = "none"
            case "jwk": header["jwk"] = ["kty": "RSA", "n": "AQAB", "e": "AQAB"]
            case "d":
                var jwk = header["jwk"] as! [String: Any]
                jwk["d"] = "secret"
                header["jwk"] = jwk
            case "htm": claims["htm"] = "GET"
            case "htu": claims["htu"] = "https://evil.example/token"
            case "htu-query": claims["htu"] = Self.url + "?x=1"
            case "old": claims["iat"] = Self.now.timeIntervalSince1970 - 61
            case "future": claims["iat"] = Self.now.timeIntervalSince1970 + 61
            case "no-iat": claims["iat"] = nil
            case "no-jti": claims["jti"] = nil
            default: break
            }
        }
        #expect(Self.refusal(proof)?.hasPrefix(says) == true, "\(Self.refusal(proof) ?? "accepted")")
    }

    @Test("a tampered signature, a signature by another key, a replayed jti, a wrong nonce, a wrong or missing ath")
    func hostileBindings() throws {
        let good = try Self.proof()
        let tampered = good.dropLast(2) + (good.hasSuffix("AA") ? "BB" : "AA")
        #expect(Self.refusal(String(tampered)) == "the signature does not verify with jwk")
        let other = try Self.proof { header, _ in
            let point = P256.Signing.PrivateKey().publicKey.x963Representation
            header["jwk"] = [
                "kty": "EC", "crv": "P-256", "x": Self.b64(point.dropFirst().prefix(32)),
                "y": Self.b64(point.suffix(32)),
            ]
        }
        #expect(Self.refusal(other) == "the signature does not verify with jwk")
        var seen: Set<String> = []
        _ = LocalDPoP.verify(good, method: "POST", url: Self.url, now: Self.now, seen: &seen)
        guard
            case .failure(let replay) = LocalDPoP.verify(
                good, method: "POST", url: Self.url, now: Self.now, seen: &seen)
        else {
            Issue.record("a replayed proof was accepted")
            return
        }
        #expect(replay.reason == "jti was used before (a replayed proof)")
        #expect(
            Self.refusal(try Self.proof { _, claims in claims["nonce"] = "old" }, nonce: "new")
                == "nonce is not the server's")
        #expect(Self.refusal(try Self.proof(), nonce: "new") == "nonce is not the server's")
        #expect(
            Self.refusal(try Self.proof { _, claims in claims["ath"] = "x" }, accessToken: "at")
                == "ath is not the access token's hash")
        #expect(Self.refusal(try Self.proof(), accessToken: "at") == "ath is not the access token's hash")
        #expect(Self.refusal("a.b") == "the proof is not a JWT with JSON header and claims")
    }

    @Test("the token endpoint's nonce demand: use_dpop_nonce with a printable nonce; anything else is no demand")
    func nonceDemand() {
        func response(_ status: Int, _ error: String, _ nonce: String?) -> OAuthHTTP.Response {
            OAuthHTTP.Response(
                status: status, contentType: "application/json", body: Data(#"{"error":"\#(error)"}"#.utf8),
                headers: nonce.map { [("DPoP-Nonce", $0)] } ?? [])
        }
        #expect(
            TokenEndpoint.nonceDemand(response(400, "use_dpop_nonce", "eyJ7S_zG.eyJH0-Z.HX4w-7v"))
                == "eyJ7S_zG.eyJH0-Z.HX4w-7v")
        #expect(TokenEndpoint.nonceDemand(response(400, "invalid_grant", "n")) == nil)
        #expect(TokenEndpoint.nonceDemand(response(400, "use_dpop_nonce", nil)) == nil)
        #expect(TokenEndpoint.nonceDemand(response(400, "use_dpop_nonce", "")) == nil)
        #expect(TokenEndpoint.nonceDemand(response(400, "use_dpop_nonce", "a b")) == nil)
        #expect(TokenEndpoint.nonceDemand(response(400, "use_dpop_nonce", String(repeating: "n", count: 513))) == nil)
        #expect(TokenEndpoint.nonceDemand(response(200, "use_dpop_nonce", "n")) == nil)
    }
}
