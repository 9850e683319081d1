// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentRules
import ExternalUserAgentNet

/// libFuzzer target: raw bytes as the headless agent's HTTP client reads a response, through its response
/// parser, with small limits so that they are reached. Properties on top of "no crash, no hang":
/// - the parser decides the same whether the bytes come at once or in three pieces (as TCP may cut them);
/// - a response it returns is final (200–599), its body is within the limit, and a body framed by
///   `Content-Length` has exactly that many bytes.
/// Small limits, so that inputs reach them (static members: a top-level variable of a libFuzzer main.swift
/// is never set up, as top-level code does not run).
enum Limits {
    static let head = 2048
    static let body = 1024
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPResponse(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    // The Date header's parser (clock-skew estimate) reads header values from the same servers.
    if let seconds = HTTPDate.secondsSince1970(String(decoding: bytes, as: UTF8.self)), seconds < -62_200_000_000 {
        fatalError("a date before year 1 was accepted")
    }
    let whole = parse(bytes, cuts: [])
    let first = bytes.isEmpty ? 0 : Int(bytes[bytes.count / 3]) % (bytes.count + 1)
    let second = bytes.isEmpty ? 0 : first + Int(bytes[bytes.count / 2]) % (bytes.count - first + 1)
    guard parse(bytes, cuts: [first, second]) == whole else {
        fatalError("the parser decides differently when the response comes in three pieces")
    }
    guard case .success(let response) = whole else { return 0 }
    guard (200...599).contains(response.status), response.body.count <= Limits.body else {
        fatalError("the parser returned an interim status or a body over its limit")
    }
    if response.header("Transfer-Encoding") == nil, response.status != 204, response.status != 304,
        let length = response.header("Content-Length"), let expected = Int(length), expected != response.body.count
    {
        fatalError("the body does not have the length its Content-Length says")
    }
    return 0
}

/// The parser's verdict on `bytes` fed in pieces that end at `cuts`, then the end of the connection.
func parse(_ bytes: [UInt8], cuts: [Int]) -> Result<HTTPResponse, HTTPParseError> {
    HTTPResponseParser.parse(bytes, cuts: cuts, maximumHeadBytes: Limits.head, maximumBodyBytes: Limits.body)
}
