// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
@testable import ExternalUserAgentOAuth
import Foundation
import Testing

/// The seeds and kept regression inputs of the `FuzzOAuthResponses` target, through the readers the client
/// uses (``UntrustedInput``): each seed decodes (the corpus still shows the target valid documents), and each
/// regression input gives a value or an error — reaching the next line at all is the "no trap" half.
@Suite("FuzzOAuthResponses inputs through the client's readers")
struct OAuthFuzzInputReplayTests {
    static func inputs(_ folder: String) -> [URL] {
        let url = TestPaths.packageRoot.appendingPathComponent("Fuzz/\(folder)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { url.appendingPathComponent($0) }
    }

    /// What the fuzz target does with one input: the first byte picks the reader.
    static func read(_ input: Data) -> Result<Void, any Error> {
        guard let selector = input.first else { return .success(()) }
        let body = input.dropFirst()
        return Result {
            switch selector % 7 {
            case 0: _ = try UntrustedInput.tokenResponse(Data(body))
            case 1: _ = try UntrustedInput.tokenResponse(Data(body), status: 400)
            case 2: _ = try UntrustedInput.errorResponse(Data(body))
            case 3: _ = try UntrustedInput.deviceAuthorizationResponse(Data(body))
            case 4: _ = try UntrustedInput.discoveryDocument(Data(body), issuer: "https://as.example")
            case 5: _ = try UntrustedInput.keySet(Data(body))
            default: _ = try UntrustedInput.stateFile(Data(body))
            }
        }
    }

    @Test(
        "each seed is a valid document for its reader (the 400 seed is the OAuth error it carries); every kept regression input gives a value or an error"
    )
    func seedsAndRegressions() throws {
        let seeds = Self.inputs("corpus/FuzzOAuthResponses")
        #expect(seeds.count >= 6)
        for seed in seeds {
            let result = Self.read(try Data(contentsOf: seed))
            if seed.lastPathComponent == "error-400" {
                #expect(throws: (any Error).self) { try result.get() }
            } else {
                #expect(throws: Never.self, "\(seed.lastPathComponent)") { try result.get() }
            }
        }
        for input in Self.inputs("regressions/FuzzOAuthResponses") {
            _ = Self.read(try Data(contentsOf: input))
        }
    }
}
