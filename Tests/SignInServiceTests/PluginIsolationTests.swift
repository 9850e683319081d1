// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentTesting
import Foundation
import Testing
import EUATestSupport

/// A plugin that crashes ends only its own sign-in: each agent runs in a child of the service (`--agent-step`).
@Suite("Sign-in service: agent plugins isolated", .onOwnThreads)
struct PluginIsolationTests {
    /// App B signs in with the headless agent (its token exchange slow); while it is in flight the host's agent
    /// becomes the misbehaving plugin built with `START_CRASHES` (`start()` writes through a bad pointer), and app A
    /// signs in with it.
    @Test(
        "an agent plugin that crashes fails only its app's sign-in (Response 2 naming it and the signal); another app's completes and the service goes on"
    )
    func crashingAgent() async throws {
        // B's sign-in is still in flight (its token endpoint answers after 8 s) when A's agent crashes.
        try await LocalAuthorizationServer.withServer(
            .init(
                clientID: "my-app", subject: "alice",
                misbehaviors: [.slowTokenEndpoint],
                tokenEndpointDelay: .seconds(8))
        ) { server in
            let folder = try TemporaryFolder("eua-signin-crash")
            let client = try await SignInServiceEndToEndTests.client(in: folder)
            let plugins = try folder.folder("plugins")
            let crashing = try CPluginBuilder.build(defines: ["START_CRASHES"], name: "libmisbehaving.so", in: plugins)
            let session = try SecretServiceSession()
            let managed = try SignInServiceHarness.writeConfiguration(home: session.folder.path)
            let sections = try await SignInServiceHarness.run(
                SandboxScript.functions + """

                    proxy org.example.AppA 201 || exit 1
                    proxy org.example.AppB 202 || exit 1
                    owner() { gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
                        --method org.freedesktop.DBus.GetNameOwner org.externaluseragent.SignIn 2>&1; }
                    before=$(owner)
                    sandboxed 202 signin "$ISSUER" my-app >"$HOME/b.out" &
                    b=$!
                    sleep 1
                    # The host's agent is now the crashing plugin (the service reads its configuration again after 2 s).
                    sed -i 's/preference = .*/preference = ["misbehaving"]/' "$HOME/.config/eua/config.toml"
                    sleep 2.5
                    echo "== a"; sandboxed 201 signin "$ISSUER" my-app
                    echo "== a-done"; kill -0 $b 2>/dev/null && echo "b_in_flight=yes"
                    wait $b
                    echo "== b"; cat "$HOME/b.out"
                    echo "== after"
                    kill -0 $service && echo "running=yes"
                    [ "$(owner)" = "$before" ] && echo "same_owner=yes"
                    echo "== b-list"; sandboxed 202 list
                    echo "== version"; gdbus call --session --dest org.externaluseragent.SignIn --object-path /org/externaluseragent/SignIn \
                        --method org.freedesktop.DBus.Properties.Get org.externaluseragent.SignIn1 version | sed 's/^/reply=/'
                    """,
                environment: try SignInServiceHarness.environment(
                    client: client, issuer: server.issuer, managed: managed,
                    pluginPath: TestPaths.productsFolder.path + ":" + plugins.path),
                session: session
            ).sections

            let log = sections["log"] ?? [:]
            let a = sections["a"] ?? [:]
            #expect(a["response"] == "2", "A: \(a); service log: \(log)")
            #expect(a["error"] == "presentationFailed")
            let description = a["error_description"] ?? ""
            #expect(description.contains(crashing.path) && description.contains("SIGSEGV"), "A: \(description)")
            // B's sign-in was in flight through A's crash, and completed.
            #expect(sections["a-done"]?["b_in_flight"] == "yes", "\(sections)")
            #expect(sections["b"]?["response"] == "0", "B: \(sections["b"] ?? [:]); service log: \(log)")
            #expect(sections["b"]?["subject"] == "alice")
            // The same service process owns its name afterwards and answers.
            #expect(sections["after"]?["running"] == "yes")
            #expect(sections["after"]?["same_owner"] == "yes", "\(sections["after"] ?? [:])")
            #expect(sections["b-list"]?["accounts"] == "1")
            #expect(sections["version"]?["reply"] == "(<uint32 1>,)")
        }
    }

    /// A plugin built with `DESCRIBE_CRASHES` (`describe()` writes through a bad pointer) on the plugin path.
    @Test(
        "a plugin that crashes while it is loaded is refused (tried in a child first); the sign-in completes with another agent"
    )
    func crashingDescribe() async throws {
        try await LocalAuthorizationServer.withServer(.init(clientID: "my-app", subject: "alice")) { server in
            let folder = try TemporaryFolder("eua-signin-crash")
            let client = try await SignInServiceEndToEndTests.client(in: folder)
            let plugins = try folder.folder("plugins")
            let crashing = try CPluginBuilder.build(defines: ["DESCRIBE_CRASHES"], name: "libcrashes.so", in: plugins)
            let session = try SecretServiceSession()
            let managed = try SignInServiceHarness.writeConfiguration(home: session.folder.path)
            let sections = try await SignInServiceHarness.run(
                """
                echo "== signin"; "$CLIENT" signin "$ISSUER" my-app
                echo "== after"; kill -0 $service && echo "running=yes"
                echo "== again"; "$CLIENT" signin "$ISSUER" my-app
                """,
                environment: try SignInServiceHarness.environment(
                    client: client, issuer: server.issuer, managed: managed,
                    pluginPath: plugins.path + ":" + TestPaths.productsFolder.path),
                session: session
            ).sections
            let log = sections["log"] ?? [:]
            #expect(sections["signin"]?["response"] == "0", "\(sections["signin"] ?? [:]); service log: \(log)")
            #expect(sections["after"]?["running"] == "yes")
            #expect(sections["again"]?["response"] == "0")
            #expect(
                log.values.contains {
                    $0.contains("the plugin \(crashing.path) crashed (SIGSEGV) while it was loaded")
                },
                "service log: \(log)")
        }
    }
}
