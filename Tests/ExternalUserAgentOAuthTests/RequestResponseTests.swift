// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore
@testable import ExternalUserAgentOAuth
import Foundation
import Testing

let exampleConfiguration = ServiceConfiguration(
    issuer: "https://id.example.com", authorizationEndpoint: URL(string: "https://id.example.com/authorize?tenant=1")!,
    tokenEndpoint: URL(string: "https://id.example.com/token")!, jwksURI: URL(string: "https://id.example.com/jwks")!)

func query(_ url: URL) -> [String: [String]] {
    Dictionary(grouping: QueryParameters.parse(url), by: \.name).mapValues { $0.map(\.value) }
}

@Suite("PKCE and the authorization request")
struct AuthorizationRequestTests {
    @Test("S256 of the RFC 7636 Appendix B verifier")
    func rfcVector() {
        #expect(
            PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk").codeChallenge
                == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test("verifiers: 43–128 unreserved characters, different every time")
    func verifiers() {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        for length in [43, 64, 128] {
            let verifier = PKCE(length: length).codeVerifier
            #expect(verifier.count == length)
            #expect(verifier.allSatisfy(unreserved.contains))
        }
        #expect(PKCE().codeVerifier != PKCE().codeVerifier)
    }

    @Test(
        "verifiers draw every unreserved character, each about equally often (66 characters: bytes are rejected, not folded)"
    )
    func verifierCharactersUniform() {
        var counts: [Character: Int] = [:]
        for _ in 0..<400 {
            for character in PKCE(length: 128).codeVerifier { counts[character, default: 0] += 1 }
        }
        // 51,200 characters: about 776 each; folding the 256 byte values onto 66 characters would give the
        // first 58 a third more than the last 8 (4 against 3 byte values), far outside these bounds.
        #expect(Set(counts.keys) == Set(SecureRandom.unreserved))
        #expect(counts.values.allSatisfy { (620...930).contains($0) }, "\(counts.sorted { $0.value < $1.value })")
    }

    @Test("the URL carries S256 PKCE, a 256-bit state and a nonce for openid; plain is never sent")
    func url() throws {
        let redirect = URL(string: "http://127.0.0.1:5000/cb")!
        let request = try AuthorizationRequest(
            configuration: exampleConfiguration, clientID: "app",
            scopes: ["openid", "email"], redirectURI: redirect)
        let items = query(request.url)
        #expect(items["response_type"] == ["code"])
        #expect(items["client_id"] == ["app"])
        #expect(items["redirect_uri"] == [redirect.absoluteString])
        #expect(items["scope"] == ["openid email"])
        #expect(items["code_challenge_method"] == ["S256"])
        #expect(items["code_challenge"] == [request.pkce.codeChallenge])
        #expect(items["code_verifier"] == nil)
        #expect(items["state"] == [request.state])
        #expect(request.state.count * 6 >= 128)
        #expect(items["nonce"] == [try #require(request.nonce)])
        #expect(items["tenant"] == ["1"], "the endpoint's own query is kept")
        let other = try AuthorizationRequest(
            configuration: exampleConfiguration, clientID: "app",
            scopes: ["openid"], redirectURI: redirect)
        #expect(other.state != request.state && other.nonce != request.nonce)
    }

    @Test("no nonce without openid")
    func noNonce() throws {
        let request = try AuthorizationRequest(
            configuration: exampleConfiguration, clientID: "app", scopes: ["api"],
            redirectURI: URL(string: "http://127.0.0.1/cb")!)
        #expect(request.nonce == nil)
        #expect(query(request.url)["nonce"] == nil)
    }

    @Test("extra parameters are added but can never replace a security parameter")
    func extraParameters() throws {
        let redirect = URL(string: "http://127.0.0.1/cb")!
        let request = try AuthorizationRequest(
            configuration: exampleConfiguration, clientID: "app", scopes: ["openid"], redirectURI: redirect,
            additionalParameters: [
                ("prompt", "login"), ("login_hint", "alice@example.com"), ("resource", "https://api"),
            ])
        let items = query(request.url)
        #expect(
            items["prompt"] == ["login"] && items["login_hint"] == ["alice@example.com"]
                && items["resource"] == ["https://api"])
        for name in ["state", "nonce", "code_challenge", "code_challenge_method", "redirect_uri", "client_id"] {
            #expect(throws: ExternalUserAgentError.self) {
                try AuthorizationRequest(
                    configuration: exampleConfiguration, clientID: "app", scopes: ["openid"],
                    redirectURI: redirect, additionalParameters: [(name, "plain")])
            }
        }
    }
}

@Suite("checking the authorization response")
struct AuthorizationResponseTests {
    let request: AuthorizationRequest

    init() throws {
        var configuration = exampleConfiguration
        configuration.authorizationResponseIssParameterSupported = false
        request = try AuthorizationRequest(
            configuration: configuration, clientID: "app", scopes: ["openid"],
            redirectURI: URL(string: "http://127.0.0.1:5000/cb")!)
    }

    func callback(_ query: String) -> URL { URL(string: "http://127.0.0.1:5000/cb?" + query)! }

    func code(of error: any Error) -> ExternalUserAgentError.Code? { (error as? ExternalUserAgentError)?.code }

    @Test("a good response gives its code")
    func good() throws {
        let response = try AuthorizationResponse(
            callbackURL: callback("code=abc&state=\(request.state)"), request: request)
        #expect(response.code == "abc")
    }

    @Test("a wrong, missing or repeated state is stateMismatch")
    func wrongState() {
        for query in ["code=abc&state=nope", "code=abc", "code=abc&state=\(request.state)&state=\(request.state)"] {
            #expect { try AuthorizationResponse(callbackURL: callback(query), request: request) } throws: {
                code(of: $0) == .stateMismatch
            }
        }
    }

    @Test("RFC 9207: a wrong iss is issuerMismatch; a right one passes")
    func wrongIssuer() throws {
        #expect {
            try AuthorizationResponse(
                callbackURL: callback("code=a&state=\(request.state)&iss=https%3A%2F%2Fevil.example"),
                request: request)
        } throws: { code(of: $0) == .issuerMismatch }
        let response = try AuthorizationResponse(
            callbackURL: callback("code=a&state=\(request.state)&iss=https%3A%2F%2Fid.example.com"), request: request)
        #expect(response.issuer == "https://id.example.com")
    }

    @Test("RFC 9207: a missing iss is issuerMismatch when the server advertises it")
    func missingIssuer() throws {
        var configuration = exampleConfiguration
        configuration.authorizationResponseIssParameterSupported = true
        let strict = try AuthorizationRequest(
            configuration: configuration, clientID: "app", scopes: ["openid"],
            redirectURI: request.redirectURI)
        #expect {
            try AuthorizationResponse(callbackURL: callback("code=a&state=\(strict.state)"), request: strict)
        } throws: {
            code(of: $0) == .issuerMismatch
        }
    }

    @Test("access_denied is userCanceled with the server's description; other errors are oauthError")
    func errors() {
        #expect {
            try AuthorizationResponse(
                callbackURL: callback("error=access_denied&error_description=The+user+said+no&state=\(request.state)"),
                request: request)
        } throws: { error in
            let error = error as? ExternalUserAgentError
            return error?.code == .userCanceled && error?.message.contains("The user said no") == true
                && (error?.underlying as? OAuthErrorResponse)?.errorDescription == "The user said no"
        }
        #expect {
            try AuthorizationResponse(
                callbackURL: callback("error=invalid_scope&state=\(request.state)"), request: request)
        } throws: { error in
            let error = error as? ExternalUserAgentError
            return error?.code == .oauthError && (error?.underlying as? OAuthErrorResponse)?.error == "invalid_scope"
        }
        #expect {
            try AuthorizationResponse(callbackURL: callback("state=\(request.state)"), request: request)
        } throws: {
            code(of: $0) == .oauthError
        }
    }
}
