// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import Foundation
import Testing

/// `eua open` and `eua receive` with C plugins that never answer, or whose cancel never returns: the built
/// binary ends by the deadline plus the grace period, with an exit status and a message naming the plugin.
@Suite("Plugin deadlines through eua", .onOwnThreads, .timeLimit(.minutes(2)))
struct PluginDeadlineCommandTests {
    /// Process start, plugin loading and a loaded machine.
    static let slack = 4.0

    @Test(
        "eua open --timeout: an agent that never presents is cancelled; exit 124 naming it, on time",
        arguments: [["NEVER_ANSWERS"], ["NEVER_ANSWERS", "CANCEL_HANGS"]])
    func openNeverPresents(defines: [String]) throws {
        let sandbox = try PluginSandbox()
        let lib = try sandbox.plugin(defines)
        try sandbox.configure("[timeouts]\ndismiss = 0.5\n")
        let (result, seconds) = try sandbox.run([
            "open", "--agent", "misbehaving", "--timeout", "1", "https://example.com/",
        ])
        #expect(result.status == 124, "stderr: \(result.stderr)")
        #expect(
            result.stderr.contains(
                "eua open: agent 'misbehaving' (\(lib.path)) did not say it had shown the URL within 1.0 s"),
            "\(result.stderr)")
        #expect(result.stderr.contains("told to cancel"))
        #expect(result.stderr.contains("--timeout"), "says what to do")
        #expect(seconds < 1 + 0.5 + Self.slack, "ended after \(seconds) s")
        #expect(result.stdout.isEmpty)
    }

    @Test("eua open without --timeout takes timeouts.present from the configuration")
    func openTimeoutFromConfiguration() throws {
        let sandbox = try PluginSandbox()
        try sandbox.plugin(["NEVER_ANSWERS", "CANCEL_HANGS"])
        try sandbox.configure("[timeouts]\npresent = 1\ndismiss = 0.5\n")
        let (result, seconds) = try sandbox.run(["open", "--agent", "misbehaving", "https://example.com/"])
        #expect(result.status == 124, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("within 1.0 s"))
        #expect(seconds < 1 + 0.5 + Self.slack, "ended after \(seconds) s")
    }

    @Test("eua open --timeout is range-checked", arguments: ["0", "-1", "1e300", "nan", "86401"])
    func openTimeoutRange(value: String) throws {
        let sandbox = try PluginSandbox()
        let (result, _) = try sandbox.run([
            "open", "--agent", "misbehaving", "--timeout=\(value)", "https://example.com/",
        ])
        #expect(result.status != 0)
        #expect(result.stderr.contains("--timeout must be more than 0 and at most 86400 seconds"), "\(result.stderr)")
    }

    @Test("eua receive --timeout: a receiver that never gives its redirect URI; exit 124 naming it, on time")
    func receiveNeverListens() throws {
        let sandbox = try PluginSandbox()
        let lib = try sandbox.plugin(["NO_AGENT", "RECEIVER_ID=\"rx\"", "NEVER_ANSWERS"])
        let (result, seconds) = try sandbox.run(["receive", "--receiver", "rx", "--timeout", "1", "--json"])
        #expect(result.status == 124, "stderr: \(result.stderr)")
        #expect(
            result.stderr.contains("receiver 'rx' (\(lib.path)) did not give its redirect URI within 1.0 s"),
            "\(result.stderr)")
        #expect(
            result.stdout.split(separator: "\n").last?.contains("\"error\":\"timedOut\"") == true, "\(result.stdout)")
        // 1 s to listen, then up to the fixed 5 s grace for a receiver that does not finish after cancel.
        #expect(seconds < 1 + 5 + Self.slack, "ended after \(seconds) s")
    }

    @Test("eua receive: a receiver whose cancel never returns does not hang the end of the wait")
    func receiveCancelHangs() throws {
        let sandbox = try PluginSandbox()
        try sandbox.plugin([
            "NO_AGENT", "RECEIVER_ID=\"rx\"", "LISTENING_URI=\"http://127.0.0.1:9/cb\"", "CANCEL_HANGS",
        ])
        let (result, seconds) = try sandbox.run(["receive", "--receiver", "rx", "--timeout", "1"])
        #expect(result.status == 124, "stderr: \(result.stderr)")
        #expect(result.stdout.hasPrefix("http://127.0.0.1:9/cb\n"))
        #expect(seconds < 1 + 5 + Self.slack, "ended after \(seconds) s")
    }

    @Test("eua receive: a redirect URI with userinfo is refused (exit 2), and no URI is printed")
    func receiveUserinfo() throws {
        let sandbox = try PluginSandbox()
        let lib = try sandbox.plugin(["NO_AGENT", "RECEIVER_ID=\"rx\"", "LISTENING_URI=\"http://user@127.0.0.1:9/cb\""])
        let (result, _) = try sandbox.run(["receive", "--receiver", "rx", "--timeout", "5"])
        #expect(result.status == 2, "stderr: \(result.stderr)")
        #expect(
            result.stderr.contains("receiver 'rx' (\(lib.path)): its redirect URI has userinfo"), "\(result.stderr)")
        #expect(result.stdout.isEmpty, "the refused URI is never handed out: \(result.stdout)")
    }
}
