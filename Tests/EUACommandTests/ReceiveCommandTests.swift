// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import Foundation
import Testing

/// `eua receive`, run as the built binary: first stdout line = redirect URI, last = the callback's JSON.
@Suite("eua receive", .onOwnThreads, .timeLimit(.minutes(1)))
struct ReceiveCommandTests {
    /// Starts `eua receive`, waits for its first line, lets `act` play the browser, then waits for the end.
    func receive(_ arguments: [String], act: (URL) throws -> Void) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        let process = try InteractiveProcess(
            try TestPaths.product("eua"), ["receive"] + arguments,
            environment: ["EUA_PLUGIN_PATH": ""])
        let shown = try process.waitForStdout(timeout: 15) { $0.contains("\n") }
        let first = shown.split(separator: "\n").first.map(String.init) ?? ""
        let uri = try #require(URL(string: first), "first line is the redirect URI: \(first)")
        try act(uri)
        let result = try process.waitForExit(timeout: 45)
        return (result.status, result.stdout, result.stderr)
    }

    func get(_ uri: URL, _ query: String) throws -> Int {
        let connection = try RawConnection(port: uri.port!)
        connection.send("GET \(uri.path)?\(query) HTTP/1.1\r\nHost: 127.0.0.1:\(uri.port!)\r\n\r\n")
        return connection.status()
    }

    @Test("first line is the redirect URI; a wrong state is refused; the real callback is the last line as JSON")
    func callback() throws {
        let result = try receive(["--state", "s1", "--path", "/done", "--timeout", "20"]) { uri in
            #expect(uri.host == "127.0.0.1")
            #expect(uri.path == "/done")
            let status1 = try get(uri, "code=c&state=evil")
            #expect(status1 == 400)
            let status2 = try get(uri, "code=c%20d&state=s1&iss=https%3A%2F%2Fas")
            #expect(status2 == 200)
        }
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        let json = try JSONSerialization.jsonObject(with: Data(lines.last!.utf8)) as? [String: String]
        #expect(json == ["code": "c d", "state": "s1", "iss": "https://as"])
    }

    @Test("an OAuth error exits 1 with a one-line reason on stderr")
    func oauthError() throws {
        let result = try receive(["--state", "s1", "--timeout", "20"]) { uri in
            let status3 = try get(uri, "error=access_denied&error_description=nope&state=s1")
            #expect(status3 == 200)
        }
        #expect(result.status == 1)
        #expect(result.stderr.contains("access_denied"))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test("a timeout exits 124 and closes the port")
    func timeout() throws {
        var port = 0
        let result = try receive(["--timeout", "0.5", "--json"]) { uri in port = uri.port! }
        #expect(result.status == 124)
        #expect(result.stderr.contains("within"))
        #expect(result.stdout.split(separator: "\n").last?.contains("\"error\":\"timedOut\"") == true)
        #expect(RawConnection.isRefused(port: port))
    }

    @Test("a fixed port that is taken exits 2 with the reason")
    func portTaken() throws {
        let holder = try receive(["--timeout", "20"]) { uri in
            let second = try ProcessRunner.run(
                try TestPaths.product("eua"), ["receive", "--port", String(uri.port!), "--timeout", "5"],
                environment: ["EUA_PLUGIN_PATH": ""])
            #expect(second.status == 2)
            #expect(second.stderr.contains("already in use"))
            let status4 = try get(uri, "code=x")
            #expect(status4 == 200)
        }
        #expect(holder.status == 0)
    }

    @Test("SIGINT cancels cleanly: exit 130, port closed")
    func interrupt() throws {
        var port = 0
        var pid: Int32 = 0
        _ = pid
        let result = try receive(["--timeout", "30"]) { uri in
            port = uri.port!
            let found = try ProcessRunner.run(
                URL(fileURLWithPath: "/usr/bin/pgrep"), ["-f", "eua receive --timeout 30"])
            pid = Int32(found.stdout.split(separator: "\n").first ?? "") ?? 0
            #expect(pid > 0)
            kill(pid, SIGINT)
        }
        #expect(result.status == 130)
        #expect(RawConnection.isRefused(port: port))
    }

    @Test("bad usage exits 2 with ArgumentParser's message, as the exit-code contract says (not EX_USAGE 64)")
    func badUsageExitsTwo() throws {
        let eua = try TestPaths.product("eua")
        for arguments in [
            ["receive", "--port", "eighty"], ["receive", "--no-such-flag"],
            ["receive", "--port", "8400", "--port-range", "8400-8410"],
        ] {
            let result = try ProcessRunner.run(eua, arguments, environment: ["EUA_PLUGIN_PATH": ""], timeout: 30)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(
                result.stderr.contains("Error:") || result.stderr.contains("error:"), "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty, "nothing on stdout: \(result.stdout)")
        }
        let other = try ProcessRunner.run(
            eua, ["agents", "--no-such-flag"], environment: ["EUA_PLUGIN_PATH": ""], timeout: 30)
        #expect(other.status == 64, "other commands keep ArgumentParser's EX_USAGE")
    }
}
