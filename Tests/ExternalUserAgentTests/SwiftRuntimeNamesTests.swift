@testable import ExternalUserAgent
import Testing

/// The runtime names matter only in a program that holds the Swift runtime itself (the release `eua` commands,
/// checked by scripts/check-package: plugins bound to that runtime, none loaded twice, refused with the reason when the
/// names are missing). A test process loads the shared runtime: nothing to open, and plugins load as before.
@Suite("Swift runtime names")
struct SwiftRuntimeNamesTests {
    @Test("a process on the shared Swift runtime opens no runtime names and refuses no plugin for them")
    func sharedRuntime() {
        #expect(!SwiftRuntimeNames.hostExportsRuntime)
        #expect(SwiftRuntimeNames.problem == nil)
    }
}
