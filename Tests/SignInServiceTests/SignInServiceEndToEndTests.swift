// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentTesting
import Foundation
import Testing
import EUATestSupport

/// The service as apps meet it: `eua-signin-service` on a private session bus with gnome-keyring-daemon unlocked
/// on it, the host's configuration allowing the headless agent (follow mode), the testing kit's local authorization
/// server, and a client written in C against GIO only (Tests/Fixtures/signin-client) calling over the bus.
@Suite("Sign-in service end to end", .onOwnThreads)
struct SignInServiceEndToEndTests {
    /// The test client, compiled with gcc against GIO into `folder` (off the cooperative pool).
    static func client(in folder: TemporaryFolder) async throws -> URL {
        let output = folder.url.appendingPathComponent("signin-client")
        let source = TestPaths.fixture("signin-client/signin-client.c").path
        let result = try await offThePool {
            try ProcessRunner.run(
                URL(fileURLWithPath: "/bin/sh"),
                [
                    "-c", "gcc -O1 -o \"$1\" \"$2\" $(pkg-config --cflags --libs gio-2.0)", "sh",
                    output.path, source,
                ], timeout: 120)
        }
        guard result.status == 0 else { throw TestSupportError("the test client did not compile: \(result.stderr)") }
        return output
    }

    @Test(
        "a host app signs in, lists, gets and refreshes a token, signs out; unknown ids, Close and hostile calls are answered"
    )
    func hostCaller() async throws {
        try await SignInServiceHarness.withServers { server, slow in
            let folder = try TemporaryFolder("eua-signin-client")
            let client = try await Self.client(in: folder)
            let session = try SecretServiceSession()
            let managed = try SignInServiceHarness.writeConfiguration(
                home: session.folder.path,
                managed: """
                    [signin.clients."\(server.issuer)"]
                    "bound-client" = ["org.example.AppA"]
                    """)
            let sections = try await SignInServiceHarness.run(
                """
                echo "== signin"; "$CLIENT" signin "$ISSUER" my-app | tee "$HOME/signin.out"
                account=$(sed -n 's/^account=//p' "$HOME/signin.out")
                echo "== again"; "$CLIENT" signin "$ISSUER" my-app "$account"
                echo "== list"; "$CLIENT" list
                echo "== token"; "$CLIENT" token "$account"
                echo "== unknown"; "$CLIENT" token 0123456789abcdef0123456789abcdef
                echo "== close"; "$CLIENT" close "$SLOW" my-app
                echo "== bound"; "$CLIENT" signin "$ISSUER" bound-client
                echo "== badtype"; "$CLIENT" raw GetAccessToken "('x', {'min_valid': <'soon'>})"
                echo "== signature"; "$CLIENT" raw GetAccessToken "('x',)"
                { printf "('"; head -c 1048576 /dev/zero | tr '\\0' a; printf "', @a{sv} {})"; } >"$HOME/long.txt"
                echo "== long"; "$CLIENT" raw GetAccessToken "@$HOME/long.txt"
                echo "== refreshed"; "$CLIENT" token "$account" 7200 id
                echo "== after"; "$CLIENT" token "$account"
                echo "== signout"; "$CLIENT" signout "$account" end
                echo "== list-after"; "$CLIENT" list
                echo "== token-after"; "$CLIENT" token "$account"
                echo "== badurl"; "$CLIENT" raw SignIn "('', {'issuer': <'http://evil.example.com'>, 'client_id': <'x'>}, @a{sv} {})"
                echo "== version"; gdbus call --session --dest org.externaluseragent.SignIn --object-path /org/externaluseragent/SignIn \
                    --method org.freedesktop.DBus.Properties.Get org.externaluseragent.SignIn1 version | sed 's/^/reply=/'
                """,
                environment: try SignInServiceHarness.environment(
                    client: client, issuer: server.issuer, managed: managed, ["SLOW": slow.issuer]),
                session: session
            ).sections

            let signIn = sections["signin"] ?? [:]
            #expect(signIn["handle_predicted"] == "yes")
            #expect(signIn["response"] == "0", "sign-in: \(signIn); service log: \(sections["log"] ?? [:])")
            #expect(signIn["subject"] == "alice")
            #expect(signIn["issuer"] == server.issuer)
            let account = try #require(signIn["account"])
            #expect(account.count == 32)
            #expect(signIn["refresh_token"] == nil && signIn["access_token"] == nil)

            // Signing in again to the same account keeps its id and adds no account.
            #expect(sections["again"]?["response"] == "0")
            #expect(sections["again"]?["account"] == account)
            #expect(sections["list"]?["accounts"] == "1")
            #expect(sections["list"]?["account"] == account)
            #expect(sections["list"]?["subject"] == "alice")

            let token = sections["token"] ?? [:]
            #expect(Int(token["access_token_length"] ?? "") ?? 0 > 0, "token: \(token)")
            #expect(Int64(token["expires_at"] ?? "") ?? 0 > Int64(Date().timeIntervalSince1970))
            #expect(token["token_type"] != nil)
            #expect(token["id_token"] == nil)

            #expect(sections["unknown"]?["error"] == "org.externaluseragent.SignIn.Error.NotFound")
            #expect(sections["close"]?["closed"] == "yes", "close: \(sections["close"] ?? [:])")
            #expect(sections["close"]?["response"] == "none")
            #expect(sections["bound"]?["error"] == "org.externaluseragent.SignIn.Error.NotAllowed")
            #expect(sections["badtype"]?["error"] == "org.externaluseragent.SignIn.Error.InvalidArgument")
            #expect(sections["signature"]?["error"] == "org.freedesktop.DBus.Error.InvalidArgs")
            #expect(sections["long"]?["error"] == "org.externaluseragent.SignIn.Error.InvalidArgument")
            #expect(sections["badurl"]?["error"] == "org.externaluseragent.SignIn.Error.InvalidArgument")
            #expect(sections["version"]?["reply"] == "(<uint32 1>,)")
            // min_valid over the token's life: refreshed in the service; the ID token only when asked for.
            let refreshed = sections["refreshed"] ?? [:]
            #expect(
                refreshed["access_token_sha256"] != nil
                    && refreshed["access_token_sha256"] != token["access_token_sha256"],
                "refreshed: \(refreshed)")
            #expect(Int(refreshed["id_token_length"] ?? "") ?? 0 > 0)
            #expect(sections["after"]?["access_token_sha256"] == refreshed["access_token_sha256"])
            // Sign-out with end_session: tokens revoked, the end-session page shown by the host agent, the account gone.
            #expect(sections["signout"]?["response"] == "0", "sign-out: \(sections["signout"] ?? [:])")
            #expect(sections["signout"]?["revoked"]?.contains("refresh_token") == true)
            #expect(sections["signout"]?["end_session"] == "sent")
            #expect(sections["list-after"]?["accounts"] == "0")
            #expect(sections["token-after"]?["error"] == "org.externaluseragent.SignIn.Error.NotFound")
        }
    }

    @Test(
        "Flatpak-shaped sandboxes: each app sees only its own accounts, gets no refresh token, and a flood is refused")
    func sandboxes() async throws {
        try await SignInServiceHarness.withServers { server, slow in
            let folder = try TemporaryFolder("eua-signin-client")
            let client = try await Self.client(in: folder)
            let session = try SecretServiceSession()
            let managed = try SignInServiceHarness.writeConfiguration(
                home: session.folder.path,
                managed: """
                    [signin.clients."\(server.issuer)"]
                    "bound-client" = ["org.example.AppA"]
                    """)
            let sections = try await SignInServiceHarness.run(
                SandboxScript.functions + """

                    proxy org.example.AppA 101 || exit 1
                    proxy org.example.AppB 102 || exit 1
                    dbus-monitor --session "type='signal',member='Response'" </dev/null >"$HOME/monitor.out" 2>&1 &
                    monitor=$!
                    sleep 0.3
                    echo "== a-signin"; sandboxed 101 signin "$ISSUER" my-app | tee "$HOME/a-signin.out"
                    account=$(sed -n 's/^account=//p' "$HOME/a-signin.out")
                    echo "== a-list"; sandboxed 101 list | tee "$HOME/a-list.out"
                    echo "== a-token"; sandboxed 101 token "$account" | tee "$HOME/a-token.out"
                    echo "== b-list"; sandboxed 102 list
                    echo "== b-token"; sandboxed 102 token "$account"
                    echo "== b-bound"; sandboxed 102 signin "$ISSUER" bound-client
                    echo "== b-reuse"; sandboxed 102 signin "$ISSUER" my-app "$account"
                    echo "== a-bound"; sandboxed 101 signin "$ISSUER" bound-client
                    echo "== host-list"; "$CLIENT" list
                    echo "== host-token"; "$CLIENT" token "$account"
                    sandboxed 102 flood 1000 "$SLOW" my-app >"$HOME/flood.out" &
                    flood=$!
                    sandboxed 102 flood 2000 "$SLOW" my-app list >"$HOME/flood-list.out" &
                    flood_list=$!
                    echo "== a-again"; sandboxed 101 signin "$ISSUER" my-app
                    wait $flood $flood_list
                    echo "== flood"; cat "$HOME/flood.out"
                    echo "== flood-list"; cat "$HOME/flood-list.out"
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
                    """,
                environment: try SignInServiceHarness.environment(
                    client: client, issuer: server.issuer, managed: managed, ["SLOW": slow.issuer]),
                session: session
            ).sections

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
            #expect(sections["b-reuse"]?["error"] == "org.externaluseragent.SignIn.Error.NotFound")
            // The client id bound to A: refused to B, a request for A.
            #expect(sections["b-bound"]?["error"] == "org.externaluseragent.SignIn.Error.NotAllowed")
            // (The local server does not know that client: the sign-in gets past the policy and fails at the server.)
            #expect(sections["a-bound"]?["response"] == "2", "A's bound client: \(sections["a-bound"] ?? [:])")
            #expect(sections["a-bound"]?["error"] == "presentationFailed")
            // One caller's flood: 4 in flight, the rest refused, while A's second sign-in completes.
            #expect(sections["flood"]?["ok"] == "4", "flood: \(sections["flood"] ?? [:])")
            #expect(sections["flood"]?["org.externaluseragent.SignIn.Error.NotAllowed"] == "996")
            #expect(sections["a-again"]?["response"] == "0")
            // Thousands of calls at once from one connection: at most 16 answered at a time, the rest refused, none failed.
            let listFlood = sections["flood-list"] ?? [:]
            #expect(Int(listFlood["ok"] ?? "") ?? 0 >= 16, "list flood: \(listFlood)")
            #expect(
                (Int(listFlood["ok"] ?? "") ?? 0)
                    + (Int(listFlood["org.externaluseragent.SignIn.Error.NotAllowed"] ?? "") ?? 0) == 2000)
            // Response only ever addressed to its caller.
            #expect(Int(sections["monitor"]?["responses"] ?? "") ?? 0 >= 2)
            #expect(sections["monitor"]?["broadcast"] == "0")
            // The keyring: A's items carry A's id and hold the refresh token, which A never received.
            #expect(sections["keyring"]?["app"] == "org.example.AppA")
            #expect(sections["keyring"]?["items"] == "2")
            #expect(Int(sections["keyring"]?["refresh_length"] ?? "") ?? 0 > 0)
            #expect(sections["keyring"]?["leaks"] == "0")
            // A leaving the bus cancelled its sign-in.
            #expect(
                sections["log"]?.values.contains { $0.contains("caller left the bus") } == true,
                "service log: \(sections["log"] ?? [:])")
        }
    }

    @Test("D-Bus activation starts the service from its installed service file; it exits when idle and comes back")
    func activation() async throws {
        let folder = try TemporaryFolder("eua-signin-client")
        let client = try await Self.client(in: folder)
        let session = try SecretServiceSession()
        let managed = try SignInServiceHarness.writeConfiguration(home: session.folder.path, managed: "")
        let sections = try await SignInServiceHarness.run(
            """
            mkdir -p "$XDG_DATA_HOME/dbus-1/services"
            sed "s|@libexecdir@/eua/eua-signin-service|$SERVICE|" "$TEMPLATE" \
                >"$XDG_DATA_HOME/dbus-1/services/org.externaluseragent.SignIn.service"
            dbus-send --session --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.ReloadConfig >/dev/null
            owned() {
              dbus-send --session --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.NameHasOwner \
                string:org.externaluseragent.SignIn | grep -c "boolean true"
            }
            echo "== before"; echo "owned=$(owned)"
            echo "activatable=$("$EUA" doctor 2>/dev/null | grep -c 'SignIn): not running; starts on the first call')"
            echo "== first"; "$CLIENT" list
            echo "== running"; echo "owned=$(owned)"
            echo "running=$("$EUA" doctor 2>/dev/null | grep -c 'SignIn): running')"
            sleep 4
            echo "== idle"; echo "owned=$(owned)"
            echo "== again"; "$CLIENT" list
            """,
            environment: [
                "SERVICE": try TestPaths.product("eua-signin-service").path, "CLIENT": client.path,
                "EUA": try TestPaths.product("eua").path, "EUA_MANAGED_CONFIG": managed,
                "TEMPLATE": TestPaths.packageRoot.appendingPathComponent("data/org.externaluseragent.SignIn.service.in")
                    .path,
                "EUA_SIGNIN_IDLE_SECONDS": "2",
            ], session: session, startsService: false
        ).sections
        #expect(sections["before"]?["owned"] == "0")
        #expect(sections["before"]?["activatable"] == "1")
        #expect(sections["first"]?["accounts"] == "0", "first call: \(sections["first"] ?? [:])")
        #expect(sections["running"]?["owned"] == "1")
        #expect(sections["running"]?["running"] == "1")
        #expect(sections["idle"]?["owned"] == "0")
        #expect(sections["again"]?["accounts"] == "0")
    }

    @Test("Close, and the caller leaving the bus, end a sign-in that waits for the browser: the receiver's port closes")
    func cancelClosesTheReceiver() async throws {
        try await LocalAuthorizationServer.withServer(.init(clientID: "my-app", subject: "alice")) { server in
            let folder = try TemporaryFolder("eua-signin-client")
            let client = try await Self.client(in: folder)
            let session = try SecretServiceSession()
            let managed = try SignInServiceHarness.writeConfiguration(
                home: session.folder.path, managed: "", mode: "never")
            let sections = try await SignInServiceHarness.run(
                """
                ports() { ss -ltnpH | grep -c "pid=$service," ; }
                echo "== idle"; echo "ports=$(ports)"
                "$CLIENT" close "$ISSUER" my-app 1500 >"$HOME/close.out" &
                closer=$!
                sleep 1
                echo "== waiting"; echo "ports=$(ports)"
                wait $closer
                sleep 0.3
                echo "== closed"; cat "$HOME/close.out"; echo "ports=$(ports)"
                "$CLIENT" signin "$ISSUER" my-app >"$HOME/leaver.out" &
                leaver=$!
                sleep 1
                echo "== before-leaving"; echo "ports=$(ports)"
                handle=$(sed -n 's/^handle=//p' "$HOME/leaver.out")
                echo "== other-close"; "$CLIENT" raw Close "()" "$handle" org.freedesktop.portal.Request
                kill $leaver
                wait $leaver
                sleep 0.5
                echo "== left"; echo "ports=$(ports)"
                """,
                environment: try SignInServiceHarness.environment(
                    client: client, issuer: server.issuer, managed: managed),
                session: session
            ).sections
            #expect(sections["idle"]?["ports"] == "0")
            // The loopback receiver listens (on 127.0.0.1, and on ::1 where it can) while the browser is open.
            #expect(Int(sections["waiting"]?["ports"] ?? "") ?? 0 >= 1, "while the browser is open: \(sections)")
            #expect(sections["closed"]?["closed"] == "yes")
            #expect(sections["closed"]?["response"] == "none")
            #expect(sections["closed"]?["ports"] == "0")
            #expect(Int(sections["before-leaving"]?["ports"] ?? "") ?? 0 >= 1)
            // Only the request's own caller may close it.
            #expect(
                sections["other-close"]?["error"] == "org.externaluseragent.SignIn.Error.NotAllowed",
                "\(sections["other-close"] ?? [:])")
            #expect(sections["left"]?["ports"] == "0")
            #expect(sections["log"]?.values.contains { $0.contains("caller left the bus") } == true)
        }
    }

    @Test(
        "the person cancelling or denying access answers 1; a provider that fails answers 2 with an error and its description"
    )
    func cancelledAndRefused() async throws {
        try await LocalAuthorizationServer.withServer(.init(clientID: "my-app", subject: "alice")) { server in
            try await LocalAuthorizationServer.withServer(.init(clientID: "my-app", misbehaviors: [.denyAccess])) {
                denying in
                try await LocalAuthorizationServer.withServer(
                    .init(clientID: "my-app", misbehaviors: [.tokenEndpointServerError])
                ) { failing in
                    let folder = try TemporaryFolder("eua-signin-client")
                    let client = try await Self.client(in: folder)
                    var results: [String: [String: String]] = [:]
                    // The headless agent as the person giving up; as a browser at a server where the person denies access; as a
                    // browser at a server whose token endpoint fails.
                    for (name, mode, issuer) in [
                        ("cancel", "cancel", server.issuer), ("denied", "follow", denying.issuer),
                        ("error", "follow", failing.issuer),
                    ] {
                        let session = try SecretServiceSession()
                        let managed = try SignInServiceHarness.writeConfiguration(
                            home: session.folder.path, managed: "", mode: mode)
                        let sections = try await SignInServiceHarness.run(
                            """
                            echo "== signin"; "$CLIENT" signin "$ISSUER" my-app
                            echo "== list"; "$CLIENT" list
                            """,
                            environment: try SignInServiceHarness.environment(
                                client: client, issuer: issuer, managed: managed),
                            session: session
                        ).sections
                        results[name] = sections["signin"] ?? [:]
                        #expect(sections["list"]?["accounts"] == "0")
                    }
                    #expect(results["cancel"]?["response"] == "1", "cancel: \(results["cancel"] ?? [:])")
                    #expect(results["cancel"]?["error"] == nil)
                    #expect(results["denied"]?["response"] == "1", "denied: \(results["denied"] ?? [:])")
                    #expect(results["error"]?["response"] == "2", "error: \(results["error"] ?? [:])")
                    #expect(results["error"]?["error"]?.isEmpty == false)
                    #expect(results["error"]?["error_description"]?.isEmpty == false)
                }
            }
        }
    }

    @Test("a refresh the provider refuses (its refresh token used elsewhere) answers InteractionRequired")
    func refreshRefused() async throws {
        try await LocalAuthorizationServer.withServer(
            .init(
                clientID: "my-app", subject: "alice",
                rotatesRefreshTokens: true)
        ) { server in
            let folder = try TemporaryFolder("eua-signin-client")
            let client = try await Self.client(in: folder)
            let session = try SecretServiceSession()
            let managed = try SignInServiceHarness.writeConfiguration(home: session.folder.path, managed: "")
            let sections = try await SignInServiceHarness.run(
                """
                echo "== signin"; "$CLIENT" signin "$ISSUER" my-app | tee "$HOME/signin.out"
                account=$(sed -n 's/^account=//p' "$HOME/signin.out")
                # Someone else spends the stored refresh token (the provider rotates them: it works once).
                refresh=$(secret-tool search --all account "$account" 2>/dev/null \
                    | sed -n 's/.*"refresh_token" *: *"\\([^"]*\\)".*/\\1/p')
                endpoint=$(curl -s "$ISSUER/.well-known/openid-configuration" | sed -n 's/.*"token_endpoint" *: *"\\([^"]*\\)".*/\\1/p')
                echo "== spent"
                echo "status=$(curl -s -o /dev/null -w '%{http_code}' -d grant_type=refresh_token -d client_id=my-app \
                    --data-urlencode "refresh_token=$refresh" "$endpoint")"
                echo "== refresh"; "$CLIENT" token "$account" 7200
                """,
                environment: try SignInServiceHarness.environment(
                    client: client, issuer: server.issuer, managed: managed),
                session: session
            ).sections
            #expect(sections["signin"]?["response"] == "0")
            #expect(sections["spent"]?["status"] == "200", "\(sections)")
            #expect(
                sections["refresh"]?["error"] == "org.externaluseragent.SignIn.Error.InteractionRequired",
                "\(sections["refresh"] ?? [:])")
        }
    }
}
