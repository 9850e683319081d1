import Crypto
import Dispatch
import ExternalUserAgentOAuth
import FoundationEssentials

/// libFuzzer target: ID token validation. The input is a JOSE header and a claims set, split at the
/// first NUL byte; the harness signs them with a fixed ES256 key, so the fuzzer reaches every claim check
/// behind a valid signature. Without a NUL the input is taken as a whole token (forged signatures).
/// Property on top: a token is only accepted when its claims are this sign-in's.
let key = try! P256.Signing.PrivateKey(rawRepresentation: Data(repeating: 7, count: 32))
let issuer = "https://as.example"
let clientID = "fuzz-client"
let nonce = "n-0S6_WzA2Mj"
let now = Date(timeIntervalSince1970: 1_800_000_000)
let keySet: Data = {
    let raw = key.publicKey.rawRepresentation
    let x = base64URL(raw.prefix(32)), y = base64URL(raw.suffix(32))
    return Data(#"{"keys":[{"kty":"EC","crv":"P-256","kid":"k1","use":"sig","alg":"ES256","x":"\#(x)","y":"\#(y)"},{"kty":"RSA","kid":"r1","n":"AQAB","e":"AQAB"}]}"#.utf8)
}()

func base64URL(_ bytes: some Sequence<UInt8>) -> String {
    String(Data(bytes).base64EncodedString().compactMap { character -> Character? in
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

/// Makes the key and key set before the first input, so the leak checker does not count them against it.
@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    _ = (key, keySet)
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIDToken(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: count)
    let token: String
    if let split = input.firstIndex(of: 0) {
        let signingInput = base64URL(input[..<split]) + "." + base64URL(input[(split + 1)...])
        guard let signature = try? key.signature(for: Data(signingInput.utf8)) else { return 0 }
        token = signingInput + "." + base64URL(signature.rawRepresentation)
    } else {
        token = String(decoding: input, as: UTF8.self)
    }
    let claims = blocking { () -> IDTokenClaims? in
        try? await UntrustedInput.idToken(Data(token.utf8), keySet: keySet, issuer: issuer, clientID: clientID,
                                          nonce: nonce, now: now)
    }
    if let claims {
        guard claims.issuer == issuer, claims.audience.contains(clientID), claims.nonce == nonce,
              claims.expiration > now.addingTimeInterval(-60) else {
            fatalError("accepted an ID token that is not this sign-in's")
        }
    }
    return 0
}
