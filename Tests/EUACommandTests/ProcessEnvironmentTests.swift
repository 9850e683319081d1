// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentSystem
import Foundation
import EUATestSupport
import Testing

/// The commands read the environment from `environ` themselves (no `ProcessInfo` on the start path).
@Suite("Process environment", .onOwnThreads)
struct ProcessEnvironmentTests {
    @Test("every variable of this process, with the value getenv(3) gives, as ProcessInfo lists them")
    func sameAsGetenv() {
        let environment = ProcessEnvironment.current()
        #expect(!environment.isEmpty)
        for (name, value) in environment {
            #expect(getenv(name).map { String(cString: $0) } == value, "\(name)")
        }
        #expect(Set(environment.keys) == Set(ProcessInfo.processInfo.environment.keys))
    }

    @Test("a name given twice is read as getenv reads it (the first); entries without a name or '=' are skipped")
    func hostileEntries() {
        let texts = ["A=first", "B=", "A=second", "NOEQUALS", "=nameless", "C=x=y"]
        var pointers: [UnsafeMutablePointer<CChar>?] = texts.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        let variables = pointers.withUnsafeMutableBufferPointer { ProcessEnvironment.variables(in: $0.baseAddress!) }
        #expect(variables == ["A": "first", "B": "", "C": "x=y"])
    }
}
