// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore
import ExternalUserAgentOAuth
import Foundation
import Testing

/// ID tokens signed properly but hostile in their header, key choice or claims, checked against a key
/// set given as bytes (``UntrustedInput/idToken(_:keySet:issuer:clientID:nonce:now:)``, no network).
@Suite("hostile input: ID token algorithms, keys and claims")
struct IDTokenHostileTests {
    func validate(_ token: String, _ keySet: Data, nonce: String? = TestKeys.nonce) async throws -> IDTokenClaims {
        try await UntrustedInput.idToken(
            Data(token.utf8), keySet: keySet, issuer: TestKeys.issuer,
            clientID: TestKeys.clientID, nonce: nonce, now: Date())
    }

    /// Expects `idTokenInvalid` whose message holds every one of `says` and none of `never`.
    func expectRefused(
        _ token: String, _ keySet: Data, says: [String], never: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        await #expect(sourceLocation: sourceLocation) {
            try await validate(token, keySet)
        } throws: { error in
            guard let error = error as? ExternalUserAgentError, error.code == .idTokenInvalid else { return false }
            let missing = says.filter { !error.message.contains($0) } + never.filter { error.message.contains($0) }
            if !missing.isEmpty { Issue.record("message: \(error.message)", sourceLocation: sourceLocation) }
            return missing.isEmpty
        }
    }

    @Test("the right key and algorithm verify: RS256, PS256 and ES256, with and without kid")
    func accepted() async throws {
        let rsa = TestKeys.keySet(TestKeys.jwk(.rsa, kid: "r", alg: "RS256", use: "sig"))
        #expect(try await validate(try await TestKeys.token(.rsa, alg: "RS256", kid: "r"), rsa).subject == "alice")
        #expect(try await validate(try await TestKeys.token(.rsa, alg: "RS256"), rsa).subject == "alice")
        let pss = TestKeys.keySet(TestKeys.jwk(.rsaPSS, kid: "p", alg: "PS256"))
        #expect(try await validate(try await TestKeys.token(.rsaPSS, alg: "PS256", kid: "p"), pss).subject == "alice")
        let ec = TestKeys.keySet(TestKeys.jwk(.ec, kid: "e", use: "sig", keyOps: ["verify"]))
        #expect(try await validate(try await TestKeys.token(.ec, alg: "ES256", kid: "e"), ec).subject == "alice")
    }

    @Test("an RS256 header verified by an Ed25519 key is refused: the key's type must fit the algorithm")
    func rs256WithEd25519Key() async throws {
        let token = try await TestKeys.token(.ed, alg: "RS256", kid: "ed")
        await expectRefused(
            token, TestKeys.keySet(TestKeys.jwk(.ed, kid: "ed", alg: "EdDSA")),
            says: ["signed with RS256", "key 'ed' (OKP Ed25519) is for EdDSA, not RS256"])
        await expectRefused(
            token, TestKeys.keySet(TestKeys.jwk(.ed, kid: "ed")),
            says: ["key 'ed' (OKP Ed25519) is a key of type OKP; RS256 needs RSA"])
        let noKid = try await TestKeys.token(.ed, alg: "RS256")
        await expectRefused(noKid, TestKeys.keySet(TestKeys.jwk(.ed)), says: ["RS256 needs RSA"])
    }

    @Test("a PS256 header over an RS256 signature is refused: by the key's alg, or by the signature check")
    func ps256OverRS256() async throws {
        let token = try await TestKeys.token(.rsa, alg: "PS256", kid: "r")
        await expectRefused(
            token, TestKeys.keySet(TestKeys.jwk(.rsa, kid: "r", alg: "RS256")),
            says: ["key 'r' (RSA) is for RS256, not PS256"])
        await expectRefused(
            token, TestKeys.keySet(TestKeys.jwk(.rsa, kid: "r")),
            says: ["PS256 signature does not verify with key 'r' (RSA)"])
    }

    @Test(
        "an algorithm the client does not allow is refused before any key is looked at",
        arguments: ["none", "HS256", "EdDSA", "RSA-OAEP"])
    func notAllowed(_ alg: String) async throws {
        let token = try await TestKeys.token(.rsa, alg: alg, kid: "r")
        await expectRefused(
            token, TestKeys.keySet(TestKeys.jwk(.rsa, kid: "r")),
            says: ["signed with '\(alg)', which this client does not accept"])
    }

    @Test("a key whose use is enc, or whose key_ops lack verify, never verifies")
    func keyUse() async throws {
        let token = try await TestKeys.token(.rsa, alg: "RS256", kid: "r")
        await expectRefused(
            token, TestKeys.keySet(TestKeys.jwk(.rsa, kid: "r", use: "enc")),
            says: ["key 'r' (RSA) is for use 'enc', not signatures"])
        await expectRefused(
            token, TestKeys.keySet(TestKeys.jwk(.rsa, kid: "r", keyOps: ["encrypt"])),
            says: ["key 'r' (RSA) has key_ops without 'verify'"])
        let ec = try await TestKeys.token(.ec, alg: "ES384", kid: "e")
        await expectRefused(
            ec, TestKeys.keySet(TestKeys.jwk(.ec, kid: "e")), says: ["is on curve P-256; ES384 needs P-384"])
    }

    @Test("no kid: the one candidate among keys of other types and uses is chosen (rp-id_token-kid-absent-single-jwks)")
    func kidAbsentSingleCandidate() async throws {
        let keySet = TestKeys.keySet(
            TestKeys.jwk(.ec, kid: "ec", use: "sig"), TestKeys.jwk(.rsa, kid: "enc", use: "enc"),
            TestKeys.jwk(.ed, kid: "ed", use: "sig"), TestKeys.jwk(.rsa, kid: "sig", use: "sig"))
        let token = try await TestKeys.token(.rsa, alg: "RS256")
        #expect(try await validate(token, keySet).subject == "alice")
    }

    @Test("no kid and several keys that fit: refused, saying so (OpenID Connect Core §10.1)")
    func kidAbsentSeveralCandidates() async throws {
        let keySet = TestKeys.keySet(TestKeys.jwk(.rsa, kid: "a"), TestKeys.jwk(.rsa, kid: "b", alg: "RS256"))
        let token = try await TestKeys.token(.rsa, alg: "RS256")
        await expectRefused(
            token, keySet,
            says: [
                "names no key (kid), and 2 keys", "key 'a' (RSA), key 'b' (RSA)",
                "§10.1",
            ])
    }

    @Test(
        "a claim of the wrong type, out of range or missing is named, never a signature failure",
        arguments: [
            (["exp": "soon"], "claim 'exp' is a string, not a NumericDate"),
            (["exp": 1e300], "claim 'exp' is 1e+300, not a time between 1970 and 9999"),
            (["iat": -1e300], "claim 'iat' is -1e+300, not a time between 1970 and 9999"),
            (["aud": 5], "claim 'aud' is the number 5, not a string or an array of strings"),
            (["aud": [5]], "claim 'aud' is an array, not a string or an array of strings"),
            (["nonce": 1], "claim 'nonce' is the number 1, not a string"),
            (["iat": nil], "claim 'iat' is missing"),
            (["sub": nil], "claim 'sub' is missing"),
            (["sub": ""], "claim 'sub' is empty"),
            (["iss": true], "claim 'iss' is true or false, not a string"),
            (["auth_time": "yesterday"], "claim 'auth_time' is a string, not a NumericDate"),
        ] as [([String: J?], String)])
    func claimTypes(_ changes: [String: J?], says: String) async throws {
        let keySet = TestKeys.keySet(TestKeys.jwk(.rsa, kid: "r", alg: "RS256"))
        let token = try await TestKeys.token(.rsa, alg: "RS256", kid: "r", claims: TestKeys.claims(changes))
        await expectRefused(token, keySet, says: [says], never: ["signature"])
    }

    @Test("display-only claims of another type are left out, not refused")
    func displayClaims() async throws {
        let keySet = TestKeys.keySet(TestKeys.jwk(.rsa, kid: "r"))
        let token = try await TestKeys.token(
            .rsa, alg: "RS256", kid: "r",
            claims: TestKeys.claims(["name": 5, "email": ["a@b"], "preferred_username": "al"]))
        let claims = try await validate(token, keySet)
        #expect(claims.name == nil && claims.email == nil && claims.preferredUsername == "al")
    }

    @Test("a header that is not what a JWS needs is named")
    func headers() async throws {
        let keySet = TestKeys.keySet(TestKeys.jwk(.rsa, kid: "r"))
        let payload = TestKeys.base64URL(J.object(TestKeys.claims()).data)
        for (header, says) in [
            (#"{"alg":5}"#, "header field 'alg' is the number 5, not a string"),
            (#"{"kid":"r"}"#, "header field 'alg' is missing"),
            (#"{"alg":"RS256","kid":7}"#, "header field 'kid' is the number 7, not a string"),
            (#"{"alg":"RS256","crit":["exp"]}"#, "critical header extensions"),
            ("[]", "header is not a JSON object"),
        ] {
            let token = TestKeys.base64URL(Data(header.utf8)) + "." + payload + ".c2ln"
            await expectRefused(token, keySet, says: [says])
        }
        await expectRefused("a.b", keySet, says: ["it has 2 parts"])
        await expectRefused("!!.??.x", keySet, says: ["not base64url"])
    }
}
