// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentTesting
import Foundation
import Testing
import EUATestSupport

/// A keyring that cannot take or give tokens: the calls of a sandboxed app and of a host app fail with
/// `org.externaluseragent.SignIn.Error.Failed` and a message that says what to do, no file is written in their stead,
/// and the service stays up.
extension SignInServiceEndToEndTests {
    /// Shell steps that print, as sections, the files written under `$HOME` (the session's HOME, XDG_CONFIG_HOME,
    /// XDG_DATA_HOME, XDG_STATE_HOME, XDG_CACHE_HOME and XDG_RUNTIME_DIR are all below it) after `$HOME/marker`, other
    /// than the script's own outputs and logs, and whether the service still runs and answers. The file `control`,
    /// written here, shows that the search finds what is written: it is the one file expected.
    static let afterwards = """
        echo "== written"
        : >"$HOME/control"
        find "$HOME" -type f -newer "$HOME/marker" ! -name '*.out' ! -name '*.log' >"$HOME/written.out"
        echo "count=$(wc -l <"$HOME/written.out")"
        awk '{ print "file" NR "=" $0 }' "$HOME/written.out"
        echo "== alive"
        kill -0 $service && echo "running=yes"
        gdbus call --session --dest org.externaluseragent.SignIn --object-path /org/externaluseragent/SignIn \
            --method org.freedesktop.DBus.Properties.Get org.externaluseragent.SignIn1 version | sed 's/^/reply=/'
        """

    /// Checks one call's answer: a `Failed` D-Bus error of the call whose message says `what` and that tokens are kept
    /// in the keyring only.
    static func expectFailed(
        _ answer: [String: String]?, saying what: String, _ sections: SignInServiceHarness.Sections,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            answer?["error"] == "org.externaluseragent.SignIn.Error.Failed",
            "\(answer ?? [:]); service log: \(sections["log"] ?? [:])", sourceLocation: sourceLocation)
        #expect(answer?["message"]?.contains(what) == true, "\(answer ?? [:])", sourceLocation: sourceLocation)
        #expect(answer?["response"] == nil, "refused before any work: no Request", sourceLocation: sourceLocation)
    }

    @Test(
        "a locked keyring: sign-ins and token reads fail with a clear error, nothing is written to disk, the service stays up"
    )
    func lockedKeyring() async throws {
        try await LocalAuthorizationServer.withServer(.init(clientID: "my-app", subject: "alice")) { server in
            let folder = try TemporaryFolder("eua-signin-client")
            let client = try await Self.client(in: folder)
            let session = try SecretServiceSession()
            let managed = try SignInServiceHarness.writeConfiguration(home: session.folder.path)
            let sections = try await SignInServiceHarness.run(
                SandboxScript.functions + """

                    proxy org.example.AppA 101 || exit 1
                    echo "== before"; sandboxed 101 signin "$ISSUER" my-app | tee "$HOME/before.out"
                    account=$(sed -n 's/^account=//p' "$HOME/before.out")
                    # The service restarts once the keyring is locked, so that it holds no account in memory.
                    kill $service; wait $service 2>/dev/null
                    gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets \
                        --method org.freedesktop.Secret.Service.Lock "['/org/freedesktop/secrets/collection/login']" >/dev/null
                    echo "== locked"
                    echo "locked=$(gdbus introspect --session --dest org.freedesktop.secrets --only-properties \
                        --object-path /org/freedesktop/secrets/collection/login | grep -c 'Locked = true')"
                    start_service
                    touch "$HOME/marker"
                    sleep 0.1
                    echo "== a-new"; sandboxed 101 signin "$ISSUER" my-app
                    echo "== a-again"; sandboxed 101 signin "$ISSUER" my-app "$account"
                    echo "== a-token"; sandboxed 101 token "$account"
                    echo "== a-list"; sandboxed 101 list
                    echo "== host-new"; "$CLIENT" signin "$ISSUER" my-app
                    \(Self.afterwards)
                    """,
                environment: try SignInServiceHarness.environment(
                    client: client, issuer: server.issuer, managed: managed),
                session: session
            ).sections

            #expect(sections["before"]?["response"] == "0", "before locking: \(sections["before"] ?? [:])")
            #expect(sections["locked"]?["locked"] == "1")
            Self.expectFailed(sections["a-new"], saying: "the keyring is locked", sections)
            Self.expectFailed(sections["a-again"], saying: "the keyring is locked", sections)
            // The account exists, but a locked keyring gives no secret: that is said, not NotFound.
            Self.expectFailed(sections["a-token"], saying: "the keyring is locked", sections)
            #expect(sections["a-token"]?["message"]?.contains("never in a file") == true)
            // Listing reads attributes only, which a locked collection still shows.
            #expect(sections["a-list"]?["accounts"] == "1", "\(sections["a-list"] ?? [:])")
            Self.expectFailed(sections["host-new"], saying: "the keyring is locked", sections)
            #expect(sections["written"]?["count"] == "1", "written while locked: \(sections["written"] ?? [:])")
            #expect(sections["written"]?["file1"]?.hasSuffix("/control") == true)
            #expect(sections["alive"]?["running"] == "yes")
            #expect(sections["alive"]?["reply"] == "(<uint32 1>,)")
        }
    }

    @Test(
        "no Secret Service on the bus: sign-ins, token reads and listing fail with a clear error, nothing is written to disk, the service stays up"
    )
    func missingKeyring() async throws {
        try await LocalAuthorizationServer.withServer(.init(clientID: "my-app", subject: "alice")) { server in
            let folder = try TemporaryFolder("eua-signin-client")
            let client = try await Self.client(in: folder)
            let session = try SecretServiceSession(keyring: false)
            let managed = try SignInServiceHarness.writeConfiguration(home: session.folder.path)
            let sections = try await SignInServiceHarness.run(
                SandboxScript.functions + """

                    proxy org.example.AppA 101 || exit 1
                    touch "$HOME/marker"
                    sleep 0.1
                    echo "== bus"
                    echo "activatable=$(dbus-send --session --print-reply --dest=org.freedesktop.DBus / \
                        org.freedesktop.DBus.ListActivatableNames | grep -c org.freedesktop.secrets)"
                    echo "== a-new"; sandboxed 101 signin "$ISSUER" my-app
                    echo "== a-token"; sandboxed 101 token 0123456789abcdef0123456789abcdef
                    echo "== a-list"; sandboxed 101 list
                    echo "== host-new"; "$CLIENT" signin "$ISSUER" my-app
                    \(Self.afterwards)
                    """,
                environment: try SignInServiceHarness.environment(
                    client: client, issuer: server.issuer, managed: managed),
                session: session
            ).sections

            #expect(sections["bus"]?["activatable"] == "0")
            Self.expectFailed(sections["a-new"], saying: "no keyring", sections)
            #expect(sections["a-new"]?["message"]?.contains("never in a file") == true)
            Self.expectFailed(sections["a-token"], saying: "no keyring", sections)
            Self.expectFailed(sections["a-list"], saying: "no keyring", sections)
            Self.expectFailed(sections["host-new"], saying: "no keyring", sections)
            #expect(sections["written"]?["count"] == "1", "written without a keyring: \(sections["written"] ?? [:])")
            #expect(sections["written"]?["file1"]?.hasSuffix("/control") == true)
            #expect(sections["alive"]?["running"] == "yes")
            #expect(sections["alive"]?["reply"] == "(<uint32 1>,)")
        }
    }
}
