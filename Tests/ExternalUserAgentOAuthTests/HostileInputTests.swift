// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore
import ExternalUserAgentOAuth
import Foundation
import Testing

/// What a hostile server can send, fed as bytes to the readers the client uses (``UntrustedInput``):
/// every number is range-checked, every wrong type named — never a trap, never a silent default.
@Suite("hostile input: token, device and state numbers, received_at")
struct HostileNumberTests {
    static func tokenBody(_ extra: String) -> Data {
        Data(#"{"access_token":"at-secret","token_type":"Bearer","refresh_token":"rt-secret",\#(extra)}"#.utf8)
    }

    @Test(
        "expires_in out of range or of the wrong type is tokenRequestFailed naming the field and value",
        arguments: [
            ("1e300", "is 1e+300;"), ("1e19", "is 1e+19;"), ("-1e30", "is -1e+30;"), ("-1", "is -1;"),
            ("315360001", "is 315360001;"), (#""soon""#, #"is the string "soon";"#),
            (#""1e300""#, #"is the string "1e300";"#), ("true", "is true or false, not a number"),
            ("[3600]", "is an array, not a number"), ("1e400", "is a number too large to read"),
        ])
    func expiresIn(_ value: String, says: String) throws {
        #expect {
            try UntrustedInput.tokenResponse(Self.tokenBody(#""expires_in":\#(value)"#))
        } throws: { error in
            let error = error as? ExternalUserAgentError
            return error?.code == .tokenRequestFailed && error?.message.contains("'expires_in' \(says)") == true
                && error?.message.contains("secret") == false
        }
    }

    @Test("expires_in as a whole number, a fraction (rounded down), a string of digits, null or absent")
    func expiresInAccepted() throws {
        #expect(try UntrustedInput.tokenResponse(Self.tokenBody(#""expires_in":3600"#)).expiresIn == 3600)
        #expect(try UntrustedInput.tokenResponse(Self.tokenBody(#""expires_in":3599.9"#)).expiresIn == 3599)
        #expect(try UntrustedInput.tokenResponse(Self.tokenBody(#""expires_in":"120""#)).expiresIn == 120)
        #expect(try UntrustedInput.tokenResponse(Self.tokenBody(#""expires_in":0"#)).expiresIn == 0)
        #expect(try UntrustedInput.tokenResponse(Self.tokenBody(#""expires_in":null"#)).expiresIn == nil)
        #expect(try UntrustedInput.tokenResponse(Self.tokenBody(#""scope":"openid""#)).expiresIn == nil)
        let longest = try UntrustedInput.tokenResponse(Self.tokenBody(#""expires_in":315360000"#))
        #expect(longest.expiresIn == TokenResponse.maximumLifetime)
    }

    @Test("a received_at from the server is ignored: the time is this client's own")
    func receivedAtFromServer() throws {
        let before = Date()
        let tokens = try UntrustedInput.tokenResponse(Self.tokenBody(#""expires_in":60,"received_at":253402300799"#))
        #expect(tokens.receivedAt >= before && tokens.receivedAt <= Date())
        let expiry = try #require(tokens.accessTokenExpirationDate)
        #expect(expiry.timeIntervalSince(before) <= 61)
        let text = String(decoding: try JSONEncoder().encode(tokens), as: UTF8.self)
        #expect(!text.contains("received_at"), "the server's format has no received_at")
    }

    @Test("a token field of the wrong type names it, and never quotes the body")
    func wrongTypes() {
        for (body, says) in [
            (#"{"access_token":5,"token_type":"Bearer"}"#, "'access_token' is the number 5, not a string"),
            (
                #"{"access_token":"at-secret","token_type":"Bearer","refresh_token":{}}"#,
                "'refresh_token' is an object, not a string"
            ),
            (#"{"access_token":"at-secret"}"#, "'token_type' is missing"),
        ] {
            #expect {
                try UntrustedInput.tokenResponse(Data(body.utf8))
            } throws: { error in
                let error = error as? ExternalUserAgentError
                return error?.code == .tokenRequestFailed && error?.message.contains(says) == true
                    && error?.message.contains("secret") == false
            }
        }
    }

    @Test(
        "device authorization: expires_in and interval are range-checked",
        arguments: [
            (
                #""expires_in":1e300,"interval":5"#,
                "'expires_in' is 1e+300; it must be a whole number of seconds from 1 to 86400"
            ),
            (#""expires_in":0"#, "'expires_in' is 0;"),
            (
                #""expires_in":600,"interval":-1"#,
                "'interval' is -1; it must be a whole number of seconds from 0 to 3600"
            ),
            (#""expires_in":600,"interval":1e19"#, "'interval' is 1e+19;"),
            (#""expires_in":"x""#, #"'expires_in' is the string "x";"#),
            (#""interval":5"#, "'expires_in' is missing"),
        ])
    func deviceNumbers(_ fields: String, says: String) {
        let body = Data(
            #"{"device_code":"dc","user_code":"UC","verification_uri":"https://id.example.com/device",\#(fields)}"#.utf8
        )
        #expect {
            try UntrustedInput.deviceAuthorizationResponse(body)
        } throws: { error in
            let error = error as? ExternalUserAgentError
            return error?.code == .tokenRequestFailed && error?.message.contains(says) == true
        }
    }

    @Test("a state file whose received_at or expires_in is out of range is stateFileInvalid, naming the field")
    func stateFileNumbers() {
        func file(_ tokenFields: String) -> Data {
            Data(
                #"""
                {"format":"eua-auth-state","version":1,"revision":3,
                 "configuration":{"issuer":"https://id.example.com","authorization_endpoint":"https://id.example.com/a",
                                  "token_endpoint":"https://id.example.com/t"},
                 "client":{"client_id":"app","token_endpoint_auth_method":"none"},
                 "token_response":{"access_token":"at","token_type":"Bearer",\#(tokenFields)}}
                """#.utf8)
        }
        #expect(throws: Never.self) { try UntrustedInput.stateFile(file(#""received_at":1700000000"#)) }
        for (fields, says) in [
            (#""received_at":1e300"#, "'received_at' is 1e+300"),
            (#""received_at":-1e300"#, "'received_at' is -1e+300"),
            (#""received_at":1700000000,"expires_in":-1e30"#, "'expires_in' is -1e+30"),
            (#""expires_in":60"#, "'received_at' is missing"),
        ] {
            #expect {
                try UntrustedInput.stateFile(file(fields))
            } throws: { error in
                let error = error as? ExternalUserAgentError
                return error?.code == .stateFileInvalid && error?.message.contains(says) == true
            }
        }
    }

    @Test("claims with a time outside 1970…9999, set through the initializer, fail to encode instead of trapping")
    func claimsEncoding() {
        let claims = IDTokenClaims(
            issuer: "i", subject: "s", audience: ["a"],
            expiration: Date(timeIntervalSince1970: 1e300), issuedAt: Date(timeIntervalSince1970: -1e300))
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(claims) }
    }

    @Test(
        "every reader survives junk: it throws, it never traps",
        arguments: [
            "", "null", "[]", "{}", "\"x\"", "1e400", "{\"keys\":5}", "{\"keys\":[5,null,{}]}",
            String(repeating: "[", count: 10_000), "{\"a\":" + String(repeating: "{\"a\":", count: 5_000),
        ])
    func junk(_ text: String) async throws {
        let data = Data(text.utf8)
        #expect(throws: (any Error).self) { try UntrustedInput.tokenResponse(data) }
        #expect(throws: (any Error).self) { try UntrustedInput.tokenResponse(data, status: 400) }
        #expect(throws: (any Error).self) { try UntrustedInput.errorResponse(data) }
        #expect(throws: (any Error).self) { try UntrustedInput.deviceAuthorizationResponse(data) }
        #expect(throws: (any Error).self) { try UntrustedInput.discoveryDocument(data, issuer: TestKeys.issuer) }
        #expect(throws: (any Error).self) { try UntrustedInput.stateFile(data) }
        await #expect(throws: (any Error).self) {
            try await UntrustedInput.idToken(
                data, keySet: data, issuer: TestKeys.issuer, clientID: TestKeys.clientID,
                nonce: nil, now: Date())
        }
        if text.hasPrefix("{\"keys\":[") {
            #expect(try UntrustedInput.keySet(data) == 3, "keys that cannot be used are listed, never chosen")
        } else {
            #expect(throws: (any Error).self) { try UntrustedInput.keySet(data) }
        }
    }
}
