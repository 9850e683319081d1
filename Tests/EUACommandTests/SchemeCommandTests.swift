// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import Foundation
import Testing

/// `eua scheme register|unregister|status|hand-off` and `eua receive --redirect-uri <scheme>:/path`, run as the
/// built binaries in an isolated desktop, with the hand-off made by real `gio open` and `xdg-open`.
@Suite("eua scheme", .onOwnThreads, .timeLimit(.minutes(2)))
struct SchemeCommandTests {
    static let redirect = "com.example.app:/cb"

    func registered() throws -> SchemeDesktop {
        let desktop = try SchemeDesktop()
        let result = try desktop.eua(["scheme", "register", SchemeDesktop.scheme])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("registered com.example.app"))
        return desktop
    }

    /// Waits on the scheme, lets `handOff` open the URL, and checks `eua receive`'s output contract.
    func receiveThrough(_ handOff: (SchemeDesktop) throws -> ProcessResult) throws {
        let desktop = try registered()
        let (receive, first) = try desktop.startReceive([
            "--redirect-uri", Self.redirect, "--state", "S", "--timeout", "30",
        ])
        #expect(first == Self.redirect)
        let opened = try handOff(desktop)
        #expect(opened.status == 0, "\(opened.stderr)")
        let result = try receive.waitForExit(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").count == 2)
        #expect(SchemeDesktop.callback(result.stdout) == ["code": "C", "state": "S"])
        #expect(
            !FileManager.default.fileExists(atPath: desktop.socket.path), "the socket is removed when the flow ends")
    }

    @Test("register writes the desktop entry and the default; gio open hands the redirect to eua receive")
    func gioOpen() throws {
        try receiveThrough { desktop in
            let entry = try String(contentsOf: desktop.entry, encoding: .utf8)
            #expect(entry.contains("MimeType=x-scheme-handler/com.example.app;"))
            #expect(entry.contains(" scheme hand-off %u"))
            let mimeapps = try String(contentsOf: desktop.mimeapps, encoding: .utf8)
            #expect(mimeapps.contains("x-scheme-handler/com.example.app=eua-scheme-com.example.app.desktop"))
            return try desktop.tool("gio", ["open", "\(Self.redirect)?code=C&state=S"])
        }
    }

    @Test("xdg-open hands the redirect to eua receive")
    func xdgOpen() throws {
        // xdg-open looks at x-scheme-handler defaults only in a graphical session; no X server is contacted.
        try receiveThrough { desktop in
            try desktop.tool("xdg-open", ["\(Self.redirect)?code=C&state=S"], extra: ["DISPLAY": ":99"])
        }
    }

    @Test("a wrong state is refused and the flow keeps waiting; the right one then completes")
    func wrongState() throws {
        let desktop = try registered()
        let (receive, _) = try desktop.startReceive([
            "--redirect-uri", Self.redirect, "--state", "S", "--timeout", "30",
        ])
        let wrong = try desktop.eua(["scheme", "hand-off", "\(Self.redirect)?code=C&state=evil"])
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("state does not belong to this sign-in"), "\(wrong.stderr)")
        #expect(!wrong.stderr.contains("code=C"), "the URL is never printed")
        let right = try desktop.eua(["scheme", "hand-off", "\(Self.redirect)?code=C&state=S"])
        #expect(right.status == 0, "\(right.stderr)")
        let result = try receive.waitForExit(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SchemeDesktop.callback(result.stdout) == ["code": "C", "state": "S"])
    }

    @Test("a hand-off with no flow waiting exits 1 and says so, without the URL")
    func noFlowWaiting() throws {
        let desktop = try registered()
        let result = try desktop.eua(["scheme", "hand-off", "\(Self.redirect)?code=C&state=S"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("no sign-in is waiting for a com.example.app: redirect"), "\(result.stderr)")
        #expect(!result.stderr.contains("code=C"))
        let opened = try desktop.tool("gio", ["open", "\(Self.redirect)?code=C&state=S"])
        #expect(opened.stderr.contains("no sign-in is waiting") || opened.status != 0, "\(opened.stderr)")
    }

    @Test("a URL of another scheme, another path or too long is refused; the flow keeps waiting")
    func refusedURLs() throws {
        let desktop = try registered()
        let (receive, _) = try desktop.startReceive([
            "--redirect-uri", Self.redirect, "--state", "S", "--timeout", "30",
        ])
        let long = try desktop.rawHandOff(
            Array("\(Self.redirect)?code=\(String(repeating: "x", count: 9000))&state=S\n".utf8))
        #expect(long.hasPrefix("refused: the URL is longer than 8192 bytes"), "\(long)")
        let other = try desktop.rawHandOff(Array("org.other.app:/cb?code=C&state=S\n".utf8))
        #expect(other == "refused: the URL is not of the scheme 'com.example.app' this flow waits on")
        let path = try desktop.rawHandOff(Array("com.example.app:/elsewhere?code=C&state=S\n".utf8))
        #expect(path.hasPrefix("refused: the URL's path"))
        let cli = try desktop.eua([
            "scheme", "hand-off", "\(Self.redirect)?code=\(String(repeating: "x", count: 9000))",
        ])
        #expect(cli.status == 1)
        #expect(cli.stderr.contains("longer than 8192 bytes"))
        let right = try desktop.rawHandOff(Array("\(Self.redirect)?code=C&state=S\n".utf8))
        #expect(right == "ok")
        let result = try receive.waitForExit(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SchemeDesktop.callback(result.stdout) == ["code": "C", "state": "S"])
    }

    @Test("a second flow on the same scheme exits 2 naming the first; the first still completes")
    func twoFlows() throws {
        let desktop = try registered()
        let (first, _) = try desktop.startReceive(["--redirect-uri", Self.redirect, "--state", "S", "--timeout", "30"])
        let second = try desktop.eua(["receive", "--redirect-uri", Self.redirect, "--state", "T", "--timeout", "10"])
        #expect(second.status == 2)
        #expect(
            second.stderr.contains("another flow is already waiting on scheme 'com.example.app' (process \(first.pid)"),
            "\(second.stderr)")
        let right = try desktop.eua(["scheme", "hand-off", "\(Self.redirect)?code=C&state=S"])
        #expect(right.status == 0, "\(right.stderr)")
        let result = try first.waitForExit(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test(
        "a hand-off from another user is refused by the waiting flow (SO_PEERCRED)",
        .enabled(if: getuid() == 0 && ProcessRunner.which("setpriv") != nil, "needs root to run a process as uid 65534")
    )
    func otherUser() throws {
        let desktop = try registered()
        let (receive, _) = try desktop.startReceive(
            ["--redirect-uri", Self.redirect, "--state", "S", "--timeout", "30"],
            extra: ["EUA_LOG_LEVEL": "warning"])
        // Let uid 65534 reach the socket, which the folder's 0700 and the socket's 0600 normally forbid.
        for (path, mode) in [
            (desktop.desktop.folder.path, 0o755), (desktop.runtime.path, 0o711),
            (desktop.runtime.path + "/eua", 0o711), (desktop.socket.path, 0o666),
        ] {
            chmod(path, mode_t(mode))
        }
        let stranger = try ProcessRunner.run(
            ProcessRunner.which("setpriv")!,
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", try TestPaths.product("eua").path,
                "scheme", "hand-off", "\(Self.redirect)?code=C&state=S",
            ],
            environment: desktop.environment, replacingEnvironment: true, timeout: 30)
        #expect(stranger.status == 1)
        #expect(stranger.stderr.contains("is not yours"), "\(stranger.stderr)")
        _ = try receive.waitForStderr(timeout: 10) { $0.contains("the hand-off came from another user (uid 65534)") }
        let right = try desktop.eua(["scheme", "hand-off", "\(Self.redirect)?code=C&state=S"])
        #expect(right.status == 0, "\(right.stderr)")
        let result = try receive.waitForExit(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SchemeDesktop.callback(result.stdout) == ["code": "C", "state": "S"])
    }

    @Test("a scheme another application owns is refused without --force (naming it), taken with it")
    func force() throws {
        let desktop = try SchemeDesktop()
        try """
        [Desktop Entry]
        Type=Application
        Name=Other App
        Exec=/bin/true %u
        MimeType=x-scheme-handler/com.example.app;
        """.write(to: desktop.applications.appendingPathComponent("other.desktop"), atomically: true, encoding: .utf8)
        let before = "[Default Applications]\nx-scheme-handler/com.example.app=other.desktop\n"
        try before.write(to: desktop.mimeapps, atomically: true, encoding: .utf8)
        let refused = try desktop.eua(["scheme", "register", SchemeDesktop.scheme])
        #expect(refused.status == 1)
        #expect(
            refused.stderr.contains("handled by another application, Other App (other.desktop)"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--force"))
        #expect(!FileManager.default.fileExists(atPath: desktop.entry.path), "nothing is left behind")
        #expect(try String(contentsOf: desktop.mimeapps, encoding: .utf8) == before)
        let forced = try desktop.eua(["scheme", "register", SchemeDesktop.scheme, "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.stdout.contains("taken over from Other App (other.desktop)"))
        let status = try desktop.eua(["scheme", "status", "--json"])
        let json = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        let first = (json?["schemes"] as? [[String: Any]])?.first
        #expect(first?["registered"] as? Bool == true)
        #expect((first?["default"] as? [String: String])?["id"] == "eua-scheme-com.example.app.desktop")
    }

    @Test("eua receive --redirect-uri with a loopback URI listens on its port and path; with --port it is refused")
    func loopbackRedirectURI() throws {
        let desktop = try SchemeDesktop()
        var port = 0
        var (receive, first) = (Optional<InteractiveProcess>.none, "")
        for _ in 0..<5 where receive == nil {
            port = Int.random(in: 20_000...60_000)
            let started = try desktop.startReceive([
                "--redirect-uri", "http://127.0.0.1:\(port)/done", "--state", "S",
                "--timeout", "30",
            ])
            if started.1.hasPrefix("http") { (receive, first) = (started.0, started.1) }
        }
        #expect(first == "http://127.0.0.1:\(port)/done")
        let (status, _) = try rawGet(try #require(URL(string: "http://127.0.0.1:\(port)/done?code=C&state=S")))
        #expect(status == 200)
        let result = try #require(receive).waitForExit(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SchemeDesktop.callback(result.stdout) == ["code": "C", "state": "S"])
        let both = try desktop.eua(["receive", "--redirect-uri", "http://127.0.0.1:8400/cb", "--port", "8401"])
        #expect(both.status == 2, "eua receive's contract: bad usage exits 2")
        #expect(both.stderr.contains("--redirect-uri names the receiver, path and port"), "\(both.stderr)")
        let remote = try desktop.eua(["receive", "--redirect-uri", "http://example.com:8400/cb"])
        #expect(remote.status == 2)
        #expect(remote.stderr.contains("RFC 8252 §7.3"), "\(remote.stderr)")
    }

    @Test("eua capabilities reports the registered scheme and its owner")
    func capabilities() throws {
        let desktop = try registered()
        let json = try desktop.eua(["capabilities", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let receiver = (report?["receivers"] as? [[String: Any]])?.first { $0["id"] as? String == "scheme" }
        #expect(receiver?["available"] as? Bool == true)
        let details = receiver?["details"] as? [String: Any]
        let schemes = details?["schemes"] as? [[String: Any]]
        #expect(schemes?.count == 1)
        #expect(schemes?.first?["scheme"] as? String == "com.example.app")
        #expect(schemes?.first?["default"] as? String == "eua-scheme-com.example.app.desktop")
        #expect(schemes?.first?["registered"] as? Bool == true)
        #expect(details?["sandbox"] as? String == "none")
        let table = try desktop.eua(["capabilities"])
        #expect(table.stdout.contains("com.example.app (registered)"), "\(table.stdout)")
    }

    @Test("register is idempotent; unregister removes the entry and the default; bad schemes are refused")
    func unregister() throws {
        let desktop = try registered()
        let again = try desktop.eua(["scheme", "register", SchemeDesktop.scheme])
        #expect(again.status == 0)
        #expect(again.stdout.contains("already registered"))
        let status = try desktop.eua(["scheme", "status"])
        #expect(status.stdout.contains("com.example.app: registered"), "\(status.stdout)")
        let removed = try desktop.eua(["scheme", "unregister", SchemeDesktop.scheme])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: desktop.entry.path))
        let mimeapps = (try? String(contentsOf: desktop.mimeapps, encoding: .utf8)) ?? ""
        #expect(!mimeapps.contains("eua-scheme-com.example.app.desktop"), "\(mimeapps)")
        let after = try desktop.eua(["scheme", "status", "--json"])
        #expect(after.stdout.trimmingCharacters(in: .newlines) == #"{"schemes":[]}"#)
        let missing = try desktop.eua([
            "scheme", "register", "org.example.tool", "--exec", "/opt/tool/bin/tool --url %u",
        ])
        #expect(missing.status == 1)
        #expect(
            missing.stderr.contains("the program '/opt/tool/bin/tool' of --exec does not exist"), "\(missing.stderr)")
        let custom = try desktop.eua(["scheme", "register", "org.example.tool", "--exec", "/bin/echo --url %u"])
        #expect(custom.status == 0, "\(custom.stderr)")
        let customEntry = try String(
            contentsOf: desktop.applications.appendingPathComponent("eua-scheme-org.example.tool.desktop"),
            encoding: .utf8)
        #expect(customEntry.contains("\nExec=/bin/echo --url %u\n"), "\(customEntry)")
        let noDot = try desktop.eua(["scheme", "register", "myapp"])
        #expect(noDot.status == 64, "bad usage: ArgumentParser's EX_USAGE")
        #expect(noDot.stderr.contains("not a reverse domain name"), "\(noDot.stderr)")
        let authority = try desktop.eua(["receive", "--redirect-uri", "com.example.app://cb", "--timeout", "5"])
        #expect(authority.status == 2)
        #expect(authority.stderr.contains("single '/'"), "\(authority.stderr)")
    }
}
