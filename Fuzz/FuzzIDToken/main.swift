// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Crypto
import Dispatch
import ExternalUserAgentOAuth
import FoundationEssentials

/// The harness's fixed values (static members: made once and kept, so the leak checker sees them reachable;
/// a top-level variable of a libFuzzer main.swift is never set up by top-level code, which does not run).
enum Fixture {
    static let key = try! P256.Signing.PrivateKey(rawRepresentation: Data(repeating: 7, count: 32))
    static let issuer = "https://as.example"
    static let clientID = "fuzz-client"
    static let nonce = "n-0S6_WzA2Mj"
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    /// A String, not Data: Data's storage reference is kept with tag bits that the leak checker does not
    /// recognise as a pointer, so a Data held for the whole run is reported as leaked.
    static let keySet: String = {
        let raw = key.publicKey.rawRepresentation
        let x = base64URL(raw.prefix(32))
        let y = base64URL(raw.suffix(32))
        return
            #"{"keys":[{"kty":"EC","crv":"P-256","kid":"k1","use":"sig","alg":"ES256","x":"\#(x)","y":"\#(y)"},{"kty":"RSA","kid":"r1","n":"AQAB","e":"AQAB"}]}"#
    }()
}

func base64URL(_ bytes: some Sequence<UInt8>) -> String {
    String(
        Data(bytes).base64EncodedString().compactMap { character -> Character? in
            switch character {
            case "+": "-"
            case "/": "_"
            case "=": nil
            default: character
            }
        })
}

func blocking<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: T?
    Task {
        result = await work()
        done.signal()
    }
    done.wait()
    return result!
}

/// libFuzzer target: ID token validation. The input is a JOSE header and a claims set, split at the
/// first NUL byte; the harness signs them with a fixed ES256 key, so the fuzzer reaches every claim check
/// behind a valid signature. Without a NUL the input is taken as a whole token (forged signatures).
/// Property on top: a token is only accepted when its claims are this sign-in's.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIDToken(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: count)
    let token: String
    if let split = input.firstIndex(of: 0) {
        let signingInput = base64URL(input[..<split]) + "." + base64URL(input[(split + 1)...])
        guard let signature = try? Fixture.key.signature(for: Data(signingInput.utf8)) else { return 0 }
        token = signingInput + "." + base64URL(signature.rawRepresentation)
    } else {
        token = String(decoding: input, as: UTF8.self)
    }
    let claims = blocking { () -> IDTokenClaims? in
        try? await UntrustedInput.idToken(
            Data(token.utf8), keySet: Data(Fixture.keySet.utf8), issuer: Fixture.issuer,
            clientID: Fixture.clientID, nonce: Fixture.nonce, now: Fixture.now)
    }
    if let claims {
        guard claims.issuer == Fixture.issuer, claims.audience.contains(Fixture.clientID),
            claims.nonce == Fixture.nonce,
            claims.expiration > Fixture.now.addingTimeInterval(-60)
        else {
            fatalError("accepted an ID token that is not this sign-in's")
        }
    }
    return 0
}
