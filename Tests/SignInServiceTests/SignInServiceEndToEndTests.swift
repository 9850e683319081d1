import ExternalUserAgentTesting
import Foundation
import Testing
import EUATestSupport

/// The service as apps meet it: `eua-signin-service` on a private session bus with gnome-keyring-daemon unlocked
/// on it, the host's configuration allowing the headless agent (follow mode), the testing kit's local authorization
/// server, and a client written in C against GIO only (Tests/Fixtures/signin-client) calling over the bus.
@Suite("Sign-in service end to end", .serialized)
struct SignInServiceEndToEndTests {
    /// The test client, compiled with gcc against GIO into `folder`.
    static func client(in folder: TemporaryFolder) throws -> URL {
        let output = folder.url.appendingPathComponent("signin-client")
        let source = TestPaths.fixture("signin-client/signin-client.c").path
        let result = try ProcessRunner.run(URL(fileURLWithPath: "/bin/sh"),
                                           ["-c", "gcc -O1 -o \"$1\" \"$2\" $(pkg-config --cflags --libs gio-2.0)", "sh",
                                            output.path, source], timeout: 120)
        guard result.status == 0 else { throw TestSupportError("the test client did not compile: \(result.stderr)") }
        return output
    }

    /// The host's configuration: the headless agent in follow mode, test agents allowed.
    static func writeConfiguration(home: String, managed: String) throws -> String {
        let folder = home + "/.config/eua"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try """
            preference = ["headless"]
            allow-test-agents = true
            [agent-options.headless]
            mode = "follow"
            """.write(toFile: folder + "/config.toml", atomically: true, encoding: .utf8)
        let managedPath = home + "/managed.toml"
        try managed.write(toFile: managedPath, atomically: true, encoding: .utf8)
        return managedPath
    }

    /// Runs `steps` (shell, with SERVICE, CLIENT and the session's environment) with the service started on the bus;
    /// returns each `== name` section's `key=value` lines.
    static func run(_ steps: String, environment: [String: String], session: SecretServiceSession) async throws
        -> [String: [String: String]] {
        let script = """
            "$SERVICE" 2>"$HOME/service.log" &
            service=$!
            tries=0
            until dbus-send --session --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.NameHasOwner \
                string:org.externaluseragent.SignIn 2>/dev/null | grep -q "boolean true"; do
              tries=$((tries + 1))
              [ $tries -gt 400 ] && { echo "== failure"; echo "started=no"; cat "$HOME/service.log"; kill $service; exit 96; }
              sleep 0.05
            done
            \(steps)
            echo "== log"
            awk '{ print "line" NR "=" $0 }' "$HOME/service.log"
            kill $service
            """
        let result = try await offThePool {
            try session.run(URL(fileURLWithPath: "/bin/sh"), ["-c", script], environment: environment, timeout: 240)
        }
        var sections: [String: [String: String]] = [:]
        var current = "start"
        for line in result.stdout.split(separator: "\n") {
            if line.hasPrefix("== ") { current = String(line.dropFirst(3)); continue }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = String(line[..<equals])
            if sections[current]?[key] == nil { sections[current, default: [:]][key] = String(line[line.index(after: equals)...]) }
        }
        if result.status != 0 || sections["failure"] != nil {
            Issue.record("the session failed (status \(result.status)): \(result.stdout)\n\(result.stderr)")
        }
        return sections
    }

    @Test("a host app signs in, lists its account, gets a token; unknown ids, Close and hostile calls are answered")
    func hostCaller() async throws {
        let server = try await LocalAuthorizationServer.start(.init(clientID: "my-app", subject: "alice"))
        defer { Task { await server.stop() } }
        // A second server whose token endpoint answers after 20 s: a sign-in still in flight when Close comes.
        let slow = try await LocalAuthorizationServer.start(.init(clientID: "my-app", subject: "bob",
                                                                  misbehaviors: [.slowTokenEndpoint],
                                                                  tokenEndpointDelay: .seconds(20)))
        defer { Task { await slow.stop() } }
        let folder = try TemporaryFolder("eua-signin-client")
        let client = try Self.client(in: folder)
        let session = try SecretServiceSession()
        let managed = try Self.writeConfiguration(home: session.folder.path, managed: """
            [signin.clients."\(server.issuer)"]
            "bound-client" = ["org.example.AppA"]
            """)
        let long = String(repeating: "a", count: 100_000)
        let sections = try await Self.run("""
            echo "== signin"; "$CLIENT" signin "$ISSUER" my-app | tee "$HOME/signin.out"
            account=$(sed -n 's/^account=//p' "$HOME/signin.out")
            echo "== list"; "$CLIENT" list
            echo "== token"; "$CLIENT" token "$account"
            echo "== unknown"; "$CLIENT" token 0123456789abcdef0123456789abcdef
            echo "== close"; "$CLIENT" close "$SLOW" my-app
            echo "== bound"; "$CLIENT" signin "$ISSUER" bound-client
            echo "== badtype"; "$CLIENT" raw GetAccessToken "('x', {'min_valid': <'soon'>})"
            echo "== signature"; "$CLIENT" raw GetAccessToken "('x',)"
            echo "== long"; "$CLIENT" raw GetAccessToken "('\(long)', @a{sv} {})"
            echo "== badurl"; "$CLIENT" raw SignIn "('', {'issuer': <'http://evil.example.com'>, 'client_id': <'x'>}, @a{sv} {})"
            echo "== version"; gdbus call --session --dest org.externaluseragent.SignIn --object-path /org/externaluseragent/SignIn \
                --method org.freedesktop.DBus.Properties.Get org.externaluseragent.SignIn1 version | sed 's/^/reply=/'
            """, environment: [
                "SERVICE": try TestPaths.product("eua-signin-service").path, "CLIENT": client.path,
                "ISSUER": server.issuer, "SLOW": slow.issuer, "EUA_MANAGED_CONFIG": managed,
                "EUA_PLUGIN_PATH": TestPaths.productsFolder.path,
            ], session: session)

        let signIn = sections["signin"] ?? [:]
        #expect(signIn["handle_predicted"] == "yes")
        #expect(signIn["response"] == "0", "sign-in: \(signIn); service log: \(sections["log"] ?? [:])")
        #expect(signIn["subject"] == "alice")
        #expect(signIn["issuer"] == server.issuer)
        let account = try #require(signIn["account"])
        #expect(account.count == 32)
        #expect(signIn["refresh_token"] == nil && signIn["access_token"] == nil)

        #expect(sections["list"]?["accounts"] == "1")
        #expect(sections["list"]?["account"] == account)
        #expect(sections["list"]?["subject"] == "alice")

        let token = sections["token"] ?? [:]
        #expect(Int(token["access_token_length"] ?? "") ?? 0 > 0, "token: \(token)")
        #expect(Int64(token["expires_at"] ?? "") ?? 0 > Int64(Date().timeIntervalSince1970))
        #expect(token["token_type"] != nil)
        #expect(token["id_token"] == nil)

        #expect(sections["unknown"]?["error"] == "org.externaluseragent.SignIn.Error.NotFound")
        #expect(sections["close"]?["closed"] != nil, "close: \(sections["close"] ?? [:])")
        #expect(sections["close"]?["response"] == "none")
        #expect(sections["bound"]?["error"] == "org.externaluseragent.SignIn.Error.NotAllowed")
        #expect(sections["badtype"]?["error"] == "org.externaluseragent.SignIn.Error.InvalidArgument")
        #expect(sections["signature"]?["error"] == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(sections["long"]?["error"] == "org.externaluseragent.SignIn.Error.InvalidArgument")
        #expect(sections["badurl"]?["error"] == "org.externaluseragent.SignIn.Error.InvalidArgument")
        #expect(sections["version"]?["reply"] == "(<uint32 1>,)")
    }

    @Test("Flatpak-shaped sandboxes: each app sees only its own accounts, gets no refresh token, and a flood is refused")
    func sandboxes() async throws {
        let server = try await LocalAuthorizationServer.start(.init(clientID: "my-app", subject: "alice"))
        defer { Task { await server.stop() } }
        let slow = try await LocalAuthorizationServer.start(.init(clientID: "my-app", subject: "bob",
                                                                  misbehaviors: [.slowTokenEndpoint],
                                                                  tokenEndpointDelay: .seconds(20)))
        defer { Task { await slow.stop() } }
        let folder = try TemporaryFolder("eua-signin-client")
        let client = try Self.client(in: folder)
        let session = try SecretServiceSession()
        let managed = try Self.writeConfiguration(home: session.folder.path, managed: """
            [signin.clients."\(server.issuer)"]
            "bound-client" = ["org.example.AppA"]
            """)
        let sections = try await Self.run(SandboxScript.functions + """

            proxy org.example.AppA 101 || exit 1
            proxy org.example.AppB 102 || exit 1
            dbus-monitor --session "type='signal',member='Response'" >"$HOME/monitor.out" 2>&1 &
            monitor=$!
            sleep 0.3
            echo "== a-signin"; sandboxed 101 signin "$ISSUER" my-app | tee "$HOME/a-signin.out"
            account=$(sed -n 's/^account=//p' "$HOME/a-signin.out")
            echo "== a-list"; sandboxed 101 list | tee "$HOME/a-list.out"
            echo "== a-token"; sandboxed 101 token "$account" | tee "$HOME/a-token.out"
            echo "== b-list"; sandboxed 102 list
            echo "== b-token"; sandboxed 102 token "$account"
            echo "== b-bound"; sandboxed 102 signin "$ISSUER" bound-client
            echo "== a-bound"; sandboxed 101 signin "$ISSUER" bound-client
            echo "== host-list"; "$CLIENT" list
            echo "== host-token"; "$CLIENT" token "$account"
            sandboxed 102 flood 1000 "$SLOW" my-app >"$HOME/flood.out" &
            flood=$!
            echo "== a-again"; sandboxed 101 signin "$ISSUER" my-app
            wait $flood
            echo "== flood"; cat "$HOME/flood.out"
            sandboxed 101 signin "$SLOW" my-app >/dev/null &
            leaver=$!
            sleep 1
            kill $leaver
            wait $leaver
            sleep 1
            kill $monitor
            echo "== monitor"
            echo "responses=$(grep -c 'member=Response' "$HOME/monitor.out")"
            echo "broadcast=$(grep 'member=Response' "$HOME/monitor.out" | grep -c 'null destination')"
            echo "== keyring"
            secret-tool search --all app org.example.AppA >"$HOME/keyring.out" 2>&1
            echo "app=$(sed -n 's/^attribute.app = //p' "$HOME/keyring.out" | head -n 1)"
            echo "items=$(grep -c '^attribute.app = ' "$HOME/keyring.out")"
            refresh=$(sed -n 's/.*"refresh_token" *: *"\\([^"]*\\)".*/\\1/p' "$HOME/keyring.out" | head -n 1)
            echo "refresh_length=${#refresh}"
            [ -n "$refresh" ] && echo "leaks=$(cat "$HOME"/a-*.out | grep -c -F "$refresh")"
            """, environment: [
                "SERVICE": try TestPaths.product("eua-signin-service").path, "CLIENT": client.path,
                "ISSUER": server.issuer, "SLOW": slow.issuer, "EUA_MANAGED_CONFIG": managed,
                "EUA_PLUGIN_PATH": TestPaths.productsFolder.path,
            ], session: session)

        let signIn = sections["a-signin"] ?? [:]
        #expect(signIn["response"] == "0", "A's sign-in: \(signIn); service log: \(sections["log"] ?? [:])")
        let account = try #require(signIn["account"])
        #expect(sections["a-list"]?["accounts"] == "1")
        #expect(sections["a-list"]?["account"] == account)
        #expect(Int(sections["a-token"]?["access_token_length"] ?? "") ?? 0 > 0)
        // B and the host: A's account does not exist for them.
        #expect(sections["b-list"]?["accounts"] == "0")
        #expect(sections["b-token"]?["error"] == "org.externaluseragent.SignIn.Error.NotFound")
        #expect(sections["host-list"]?["accounts"] == "0")
        #expect(sections["host-token"]?["error"] == "org.externaluseragent.SignIn.Error.NotFound")
        // The client id bound to A: refused to B, a request for A.
        #expect(sections["b-bound"]?["error"] == "org.externaluseragent.SignIn.Error.NotAllowed")
        #expect(sections["a-bound"]?["error"] == nil && sections["a-bound"]?["response"] != nil,
                "A's bound client: \(sections["a-bound"] ?? [:])")
        // One caller's flood: 4 in flight, the rest refused, while A's second sign-in completes.
        #expect(sections["flood"]?["ok"] == "4", "flood: \(sections["flood"] ?? [:])")
        #expect(sections["flood"]?["org.externaluseragent.SignIn.Error.NotAllowed"] == "996")
        #expect(sections["a-again"]?["response"] == "0")
        // Response only ever addressed to its caller.
        #expect(Int(sections["monitor"]?["responses"] ?? "") ?? 0 >= 2)
        #expect(sections["monitor"]?["broadcast"] == "0")
        // The keyring: A's items carry A's id and hold the refresh token, which A never received.
        #expect(sections["keyring"]?["app"] == "org.example.AppA")
        #expect(sections["keyring"]?["items"] == "2")
        #expect(Int(sections["keyring"]?["refresh_length"] ?? "") ?? 0 > 0)
        #expect(sections["keyring"]?["leaks"] == "0")
        // A leaving the bus cancelled its sign-in.
        #expect(sections["log"]?.values.contains { $0.contains("caller left the bus") } == true,
                "service log: \(sections["log"] ?? [:])")
    }
}
