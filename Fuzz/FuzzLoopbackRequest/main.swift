import ExternalUserAgent
import ExternalUserAgentWire
import FoundationEssentials
import LoopbackReceiverPlugin
import NIOCore
import NIOEmbedded
import NIOHTTP1

/// libFuzzer target: raw bytes as the loopback receiver reads them — request line, headers, target and
/// query — through SwiftNIO's HTTP/1 decoder and the receiver's own checks, with one property on top:
/// whatever the receiver accepts as the redirect, the app must read the same way (same redirect URI,
/// same `state`). The `#` bug (the page said success, the app never saw the state) broke exactly that.
let path = "/cb-fuzz"
let port = 8400
let expectedState = "S0me-state_value"
let redirectURI = URL(string: "http://127.0.0.1:\(port)\(path)")!
let validation = CallbackValidation(path: path, port: port, expectedState: expectedState)

/// Makes the globals before the first input, so the leak checker does not count them against it.
@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    _ = (validation, redirectURI)
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLoopbackRequest(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let channel = EmbeddedChannel(handler: ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
    defer { _ = try? channel.finish() }
    var buffer = channel.allocator.buffer(capacity: count)
    buffer.writeBytes(UnsafeBufferPointer(start: data, count: count))
    guard (try? channel.writeInbound(buffer)) != nil else { return 0 }
    while let part = try? channel.readInbound(as: HTTPServerRequestPart.self) {
        guard case .head(let head) = part else { continue }
        if case .callback(_, let query, _) = validation.check(head) {
            let text = query.isEmpty ? redirectURI.absoluteString : redirectURI.absoluteString + "?" + query
            guard let url = URL(string: text) else { fatalError("accepted a redirect the app cannot parse as a URL") }
            if let mismatch = RedirectURIMatch.mismatch(callback: url, redirectURI: redirectURI) {
                fatalError("accepted a redirect the app rejects: \(mismatch)")
            }
            if let problem = ExternalUserAgentSession.stateProblem(in: url, expected: expectedState) {
                fatalError("accepted a redirect whose state the app reads differently: \(problem)")
            }
        }
        return 0  // the receiver answers the first request on a connection only
    }
    return 0
}
