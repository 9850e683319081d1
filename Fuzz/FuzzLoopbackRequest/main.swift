// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore
import ExternalUserAgentRules
import FoundationEssentials
import EUALoopback
import ExternalUserAgentNet

/// The receiver the bytes are fed to (static members: made once and kept, so the leak checker sees them
/// reachable; a top-level variable of a libFuzzer main.swift is never set up, as top-level code does not run).
enum Fixture {
    static let path = "/cb-fuzz"
    static let port = 8400
    static let expectedState = "S0me-state_value"
    static let redirectURI = URL(string: "http://127.0.0.1:\(port)\(path)")!
    static let validation = CallbackValidation(path: path, port: port, expectedState: expectedState)
    /// The receiver's limit on a request head (`LoopbackOptions.maxHeadBytes`).
    static let headLimit = 16 * 1024
}

/// libFuzzer target: raw bytes as the loopback receiver reads them — request line, headers, target and
/// query — through its own request-head parser and checks, with two properties on top:
/// - the parser decides the same whether the bytes come at once or in two pieces (as TCP may cut them), and
///   whether it keeps every header field or only `Host`;
/// - whatever the receiver accepts as the redirect, the app reads the same way (same redirect URI, same
///   `state`). The `#` bug (the page said success, the app never saw the state) broke exactly that.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLoopbackRequest(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    var whole = HTTPRequestHeadParser(limit: Fixture.headLimit)
    let outcome = whole.feed(bytes[...])
    var split = HTTPRequestHeadParser(limit: Fixture.headLimit)
    let cut = bytes.isEmpty ? 0 : Int(bytes[bytes.count / 2]) % (bytes.count + 1)
    var inPieces = split.feed(bytes[..<cut])
    if inPieces == .needMore { inPieces = split.feed(bytes[cut...]) }
    guard inPieces == outcome else { fatalError("the parser decides differently when the head comes in two pieces") }
    // Keeping every field (the testing kit's local server does) changes nothing but the fields kept.
    var keeping = HTTPRequestHeadParser(limit: Fixture.headLimit, keepsFields: true)
    let kept = keeping.feed(bytes[...])
    switch (outcome, kept) {
    case (.head(var plain), .head(let full)):
        guard full.fields.filter({ $0.name.lowercased() == "host" }).map(\.value) == full.hostValues else {
            fatalError("the kept Host fields are not the host values")
        }
        plain.fields = full.fields
        guard plain == full else { fatalError("keeping the fields changed the head") }
    case (let a, let b) where a == b:
        break
    default:
        fatalError("keeping the fields changed the parser's decision")
    }
    guard case .head(let head) = outcome else { return 0 }
    guard whole.bytesConsumed <= Fixture.headLimit, head.target.utf8.allSatisfy(HTTPSyntax.isVisibleASCII) else {
        fatalError("the parser accepted a head over its limit or a target that is not visible ASCII")
    }
    if case .callback(_, let query, _) = Fixture.validation.check(head) {
        let text = query.isEmpty ? Fixture.redirectURI.absoluteString : Fixture.redirectURI.absoluteString + "?" + query
        guard let url = URL(string: text) else { fatalError("accepted a redirect the app cannot parse as a URL") }
        if let mismatch = RedirectURIMatch.mismatch(callback: url, redirectURI: Fixture.redirectURI) {
            fatalError("accepted a redirect the app rejects: \(mismatch)")
        }
        if let problem = ExternalUserAgentSession.stateProblem(in: url, expected: Fixture.expectedState) {
            fatalError("accepted a redirect whose state the app reads differently: \(problem)")
        }
    }
    return 0
}
