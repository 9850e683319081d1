// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore

/// libFuzzer target: a configuration file as `eua` reads one — the TOML reader (size, UTF-8, depth and
/// syntax checks included) and then the schema of a managed file, the strictest layer. Any input must give
/// settings or an error with file:line, never a trap, and in time linear in its size.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTOML(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    _ = try? ConfigurationFile(bytes: bytes, path: "fuzz.toml", layer: .managed)
    return 0
}
