// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore
import Testing

@Suite("Errors")
struct ErrorTests {
    @Test("codes compare, print their name, and map from plugin event names")
    func codes() {
        #expect(ExternalUserAgentError.Code.userCanceled == ExternalUserAgentError.Code(name: "userCanceled"))
        #expect(ExternalUserAgentError.Code(name: "noSuchCode") == nil)
        #expect(ExternalUserAgentError.Code.timedOut.description == "timedOut")
        #expect(ExternalUserAgentError(.userCanceled, "x").isCancellation)
        #expect(!ExternalUserAgentError(.timedOut, "x").isCancellation)
    }

    @Test("the description carries message, code and cause")
    func description() {
        struct Cause: Error, CustomStringConvertible { var description: String { "disk on fire" } }
        let error = ExternalUserAgentError(.receiverFailed, "port 8400 is taken; choose another", underlying: Cause())
        #expect(error.description == "port 8400 is taken; choose another (receiverFailed; caused by: disk on fire)")
    }
}
