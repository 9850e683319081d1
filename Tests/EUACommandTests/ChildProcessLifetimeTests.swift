// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import Foundation
import Testing

/// A test process that crashes must not leave `swift test` waiting forever: every program the tests start dies with
/// the test process, and none holds the test process's own stdout or stderr (the pipes `swift test` reads to the end).
@Suite("Programs the tests start die with the test process", .onOwnThreads, .timeLimit(.minutes(1)))
struct ChildProcessLifetimeTests {
    /// What the child itself reports: its parent-death signal (`prctl(PR_GET_PDEATHSIG)`) and what its stderr is.
    static let report = """
        import ctypes, os, sys
        signal = ctypes.c_int(0)
        ctypes.CDLL(None, use_errno=True).prctl(2, ctypes.byref(signal), 0, 0, 0)
        print(signal.value)
        print(os.readlink("/proc/self/fd/2"))
        """

    @Test("a child gets SIGKILL as its parent-death signal, and an inherited stderr is not the test process's own")
    func diesWithTheTestProcess() async throws {
        let python = try #require(ProcessRunner.which("python3"))
        let child = try ChildProcess(python, ["-c", Self.report], stdin: .null, stdout: .pipe, stderr: .inherit)
        #expect(child.waitForExit(timeout: 30) == .exited(0))
        #expect(child.waitForOutput(timeout: 10))
        let lines = String(decoding: child.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines.first == String(SIGKILL), "the parent-death signal is SIGKILL: \(lines)")
        let ours = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/2")
        #expect(
            lines.count == 2 && lines[1].hasPrefix("pipe:") && lines[1] != ours,
            "the child's stderr is a pipe of its own, not the test process's \(ours): \(lines)")
    }
}
