// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentTesting
import Foundation
import Testing

/// `eua-signin-service` on the private session bus of a ``SecretServiceSession``, for the tests of the service and
/// of its clients: the host's configuration written into the session's home, the service started (or left to D-Bus
/// activation), a shell script of steps run against it, and the script's output read back as sections.
public enum SignInServiceHarness {
    /// What a script printed: each `== name` line starts a section, whose `key=value` lines it holds (the first of a
    /// key wins); lines before the first section are in `start`.
    public typealias Sections = [String: [String: String]]

    /// The outcome of ``run(_:environment:session:startsService:timeout:)``.
    public struct Outcome: Sendable {
        /// The script's sections; `log` holds the service's stderr as `line1=…`, `line2=…`.
        public var sections: Sections
        /// The script's whole output, for failure messages.
        public var report: String
    }

    /// Runs `body` with the two local servers of the service's tests, both for client `my-app`, and stops them however
    /// `body` ends: `server` signs `alice` in; `slow` signs `bob` in with a token endpoint that answers after 20 s, for a
    /// sign-in still in flight when `Close` comes or its caller leaves.
    public static func withServers<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (LocalAuthorizationServer, LocalAuthorizationServer) async throws -> Result
    ) async throws -> Result {
        try await LocalAuthorizationServer.withServer(.init(clientID: "my-app", subject: "alice")) { server in
            try await LocalAuthorizationServer.withServer(
                .init(
                    clientID: "my-app", subject: "bob", misbehaviors: [.slowTokenEndpoint],
                    tokenEndpointDelay: .seconds(20))
            ) { slow in
                try await body(server, slow)
            }
        }
    }

    /// Writes the host's configuration into `home` (`$HOME/.config/eua/config.toml`): the headless agent in `mode`
    /// (follow: it signs in as a browser would; never: it never answers, as a person who leaves the browser open;
    /// cancel: the person gives up), test agents allowed; and `managed` as the managed layer, whose path is returned
    /// (for `EUA_MANAGED_CONFIG`).
    public static func writeConfiguration(home: String, managed: String = "", mode: String = "follow") throws -> String
    {
        let folder = home + "/.config/eua"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try """
        preference = ["headless"]
        allow-test-agents = true
        [agent-options.headless]
        mode = "\(mode)"
        """.write(toFile: folder + "/config.toml", atomically: true, encoding: .utf8)
        let managedPath = home + "/managed.toml"
        try managed.write(toFile: managedPath, atomically: true, encoding: .utf8)
        return managedPath
    }

    /// The environment of a script that signs in through the service: `$SERVICE` (this build's service), `$CLIENT`
    /// (`client`, a test client of the C library), `$ISSUER`, `managed` as the managed layer (`EUA_MANAGED_CONFIG`,
    /// from ``writeConfiguration(home:managed:mode:)``), `pluginPath` as `EUA_PLUGIN_PATH` (this build's plugins
    /// unless given), and `more` over them.
    public static func environment(
        client: URL, issuer: String, managed: String, pluginPath: String = TestPaths.productsFolder.path,
        _ more: [String: String] = [:]
    ) throws -> [String: String] {
        [
            "SERVICE": try TestPaths.product("eua-signin-service").path, "CLIENT": client.path, "ISSUER": issuer,
            "EUA_MANAGED_CONFIG": managed, "EUA_PLUGIN_PATH": pluginPath,
        ].merging(more) { _, given in given }
    }

    /// Runs `steps` (shell, with `$SERVICE` and the rest of `environment`) in `session`, the service started on the
    /// bus first (or, unless `startsService`, left to D-Bus activation). The steps may call `start_service` to start
    /// it again (after `kill $service`); the script ends the service and any bubblewrap proxies (`$proxies`).
    /// Records an issue when the script failed or printed a `failure` section.
    public static func run(
        _ steps: String, environment: [String: String], session: SecretServiceSession,
        startsService: Bool = true, timeout: TimeInterval = 240
    ) async throws -> Outcome {
        let script = """
            : >"$HOME/service.log"
            start_service() {
              "$SERVICE" 2>>"$HOME/service.log" &
              service=$!
              tries=0
              until dbus-send --session --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.NameHasOwner \
                  string:org.externaluseragent.SignIn 2>/dev/null | grep -q "boolean true"; do
                tries=$((tries + 1))
                [ $tries -gt 400 ] && { echo "== failure"; echo "started=no"; cat "$HOME/service.log"; kill $service; exit 96; }
                sleep 0.05
              done
            }
            \(startsService ? "start_service" : ":")
            \(steps)
            echo "== log"
            awk '{ print "line" NR "=" $0 }' "$HOME/service.log"
            [ -n "${proxies:-}" ] && kill $proxies
            [ -n "${service:-}" ] && kill $service
            exit 0
            """
        let result = try await offThePool {
            try session.run(
                URL(fileURLWithPath: "/bin/sh"), ["-c", script], environment: environment, timeout: timeout)
        }
        let sections = parse(result.stdout)
        let report = "\(result.stdout)\n\(result.stderr)"
        if result.status != 0 || sections["failure"] != nil {
            Issue.record("the session failed (status \(result.status)): \(report)")
        }
        return Outcome(sections: sections, report: report)
    }

    /// The sections of a script's output (see ``Sections``).
    public static func parse(_ output: String) -> Sections {
        var sections: Sections = [:]
        var current = "start"
        for line in output.split(separator: "\n") {
            if line.hasPrefix("== ") {
                current = String(line.dropFirst(3))
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = String(line[..<equals])
            if sections[current]?[key] == nil {
                sections[current, default: [:]][key] = String(line[line.index(after: equals)...])
            }
        }
        return sections
    }
}
