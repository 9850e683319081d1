// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import Foundation
import Testing

/// A scheme hand-off the desktop runs has no terminal: when its redirect is dropped it also says so in a desktop
/// notification. Checked on a real session bus (`dbus-run-session`) with `dbus-monitor` recording the
/// `org.freedesktop.Notifications.Notify` call the built `eua` makes.
@Suite("eua scheme hand-off: desktop notification", .onOwnThreads, .timeLimit(.minutes(2)))
struct SchemeNotificationTests {
    /// Runs `eua scheme hand-off url` inside a fresh session bus with a monitor; returns the hand-off's exit
    /// status and stderr, and what the monitor saw.
    func handOffOnBus(_ url: String, desktop: SchemeDesktop) throws -> (status: Int32, stderr: String, monitor: String)
    {
        let folder = try TemporaryFolder()
        let monitor = folder.url.appendingPathComponent("monitor.txt")
        let errors = folder.url.appendingPathComponent("stderr.txt")
        let script = """
            dbus-monitor --session "interface='org.freedesktop.Notifications'" > "$MONITOR" 2>/dev/null &
            watcher=$!
            for _ in $(seq 200); do grep -q NameAcquired "$MONITOR" 2>/dev/null && break; sleep 0.05; done
            "$EUA" scheme hand-off "$URL" 2> "$ERRORS"
            status=$?
            sleep 0.3
            kill -KILL $watcher
            exit $status
            """
        var environment = desktop.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        environment["MONITOR"] = monitor.path
        environment["ERRORS"] = errors.path
        environment["URL"] = url
        environment["EUA"] = try TestPaths.product("eua").path
        guard let session = ProcessRunner.which("dbus-run-session") else {
            throw TestSupportError(
                "dbus-run-session is not installed (scripts/bootstrap installs dbus-daemon and dbus-bin)")
        }
        // dbus-run-session stops its bus with SIGTERM; ChildProcess starts it with no signal blocked.
        let result = try ProcessRunner.run(
            session, ["--", "sh", "-c", script],
            environment: environment, replacingEnvironment: true, timeout: 60)
        return (
            result.status, try String(contentsOf: errors, encoding: .utf8),
            try String(contentsOf: monitor, encoding: .utf8)
        )
    }

    @Test(
        "with no sign-in waiting, the dropped redirect is a notification on the session bus and a line on stderr, never the URL"
    )
    func notifiesWhenNobodyWaits() throws {
        let desktop = try SchemeDesktop()
        let result = try handOffOnBus("com.example.app:/cb?code=C&state=S", desktop: desktop)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("no sign-in is waiting for a com.example.app: redirect"), "\(result.stderr)")
        #expect(result.monitor.contains("member=Notify"), "\(result.monitor)")
        #expect(result.monitor.contains("string \"Sign-in redirect not delivered\""), "\(result.monitor)")
        #expect(result.monitor.contains("no sign-in is waiting for a com.example.app: redirect"), "\(result.monitor)")
        #expect(!result.monitor.contains("code=C") && !result.stderr.contains("code=C"), "the URL carries a code")
    }

    @Test("a redirect that is taken sends no notification")
    func silentWhenTaken() throws {
        let desktop = try SchemeDesktop()
        #expect(try desktop.eua(["scheme", "register", SchemeDesktop.scheme]).status == 0)
        let (receive, _) = try desktop.startReceive([
            "--redirect-uri", "com.example.app:/cb", "--state", "S", "--timeout", "30",
        ])
        let result = try handOffOnBus("com.example.app:/cb?code=C&state=S", desktop: desktop)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.monitor.contains("member=Notify"), "\(result.monitor)")
        #expect(try receive.waitForExit(timeout: 30).status == 0)
    }
}
