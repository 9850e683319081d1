// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
@testable import ExternalUserAgentCore
import Testing

/// The runtime names matter only in a program on the package's runtime library (a release build, checked by
/// scripts/check-package: a Swift plugin built elsewhere bound to that runtime, none loaded twice, refused with the
/// reason when a real library is found under a name). A test process loads the toolchain's runtime: nothing to
/// answer, and plugins load as before.
@Suite("Swift runtime names")
struct SwiftRuntimeNamesTests {
    @Test("a process on the toolchain's Swift runtime answers no runtime names and refuses no plugin for them")
    func toolchainRuntime() {
        #expect(SwiftRuntimeNames.problem == nil)
    }

    @Test(
        "a missing symbol of the standard library, the runtime or Foundation is told apart from a plugin's own",
        arguments: [
            ("/p/libA.so: undefined symbol: $ss23_ContiguousArrayStorageCMn", true),
            ("/p/libA.so: undefined symbol: $sSS10FoundationE4data", true),
            ("/p/libA.so: undefined symbol: swift_retain", true),
            ("/p/libA.so: undefined symbol: $s20FoundationEssentials4DataVMn", true),
            ("/p/libA.so: undefined symbol: $s12_Concurrency4TaskVMn", true),
            ("/p/libA.so: undefined symbol: $s7MyKit5ThingVMn", false),
            ("/p/libA.so: undefined symbol: g_app_info_launch_uris", false),
            ("/p/libA.so: cannot open shared object file: No such file or directory", false),
        ])
    func runtimeSymbol(reason: String, expected: Bool) {
        #expect(SwiftRuntimeNames.isRuntimeSymbolMissing(reason) == expected, "\(reason)")
    }
}
