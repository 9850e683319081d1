// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentOAuth
import FoundationEssentials

/// libFuzzer target: every document a server (or the state file) hands the OAuth client. The first
/// byte picks the reader, the rest is the body. Any input must give a value or an error, never a trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOAuthResponses(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let body = Data(UnsafeBufferPointer(start: data + 1, count: count - 1))
    switch data[0] % 7 {
    case 0: _ = try? UntrustedInput.tokenResponse(body)
    case 1: _ = try? UntrustedInput.tokenResponse(body, status: 400)
    case 2: _ = try? UntrustedInput.errorResponse(body)
    case 3: _ = try? UntrustedInput.deviceAuthorizationResponse(body)
    case 4: _ = try? UntrustedInput.discoveryDocument(body, issuer: "https://as.example")
    case 5: _ = try? UntrustedInput.keySet(body)
    default: _ = try? UntrustedInput.stateFile(body)
    }
    return 0
}
