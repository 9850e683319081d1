// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Foundation

/// A real freedesktop Secret Service for tests: each ``run(_:_:environment:timeout:)`` starts a private
/// session bus (`dbus-daemon --session`) on which `gnome-keyring-daemon` is unlocked (its keyring kept in this value's folder, so
/// items persist from one run to the next) and the command runs. Debian: dbus-daemon, dbus-bin, gnome-keyring.
public final class SecretServiceSession: @unchecked Sendable {
    /// HOME, XDG_DATA_HOME and XDG_RUNTIME_DIR of the session: the keyring lives here.
    public let folder: TemporaryFolder

    /// Whether the session has a Secret Service: without one, its bus also activates nothing from the system's
    /// service files (which name gnome-keyring-daemon), only from `$XDG_DATA_HOME/dbus-1/services`.
    public let hasKeyring: Bool

    /// A session folder with no keyring yet (the first run makes one, unlocked with a test password), or, unless
    /// `keyring`, a session with no Secret Service at all.
    public init(keyring: Bool = true) throws {
        hasKeyring = keyring
        folder = try TemporaryFolder("eua-keyring")
        chmod(folder.path, 0o700)
        _ = try folder.folder("runtime")
        chmod(folder.path + "/runtime", 0o700)
    }

    /// The environment the session's commands get: this folder as HOME, XDG_DATA_HOME and XDG_RUNTIME_DIR.
    public var environment: [String: String] {
        ["HOME": folder.path, "XDG_DATA_HOME": folder.path + "/data", "XDG_RUNTIME_DIR": folder.path + "/runtime"]
    }

    /// Runs `executable arguments…` inside a new session bus with the keyring unlocked (or with none); exit status 97
    /// and a message on stderr when the keyring did not start within 10 s.
    public func run(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:],
        timeout: TimeInterval = 90
    ) throws -> ProcessResult {
        // The bus and the keyring are started here and killed with SIGKILL at the end: the test runner's children
        // inherit an ignored SIGTERM, so dbus-run-session's SIGTERM would leave a bus holding the output pipes.
        // The command starts once the keyring owns org.freedesktop.secrets.
        let script = """
            dir=$XDG_RUNTIME_DIR
            config=--session
            if [ "$EUA_TEST_KEYRING" = none ]; then
              # The session bus's own rules, with only the session's own service folder (no gnome-keyring to activate).
              printf '%s\n' '<busconfig><type>session</type><keep_umask/><listen>unix:tmpdir=/tmp</listen>' \
                '<auth>EXTERNAL</auth>' "<servicedir>$XDG_DATA_HOME/dbus-1/services</servicedir>" \
                '<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/>' \
                '<allow own="*"/></policy></busconfig>' >"$dir/bus.conf"
              config=--config-file="$dir/bus.conf"
            fi
            dbus-daemon "$config" --fork --nopidfile --print-address=3 --print-pid=4 3>"$dir/bus-address" 4>"$dir/bus-pid" \
                </dev/null >/dev/null 2>&1 || { echo "dbus-daemon could not be started" >&2; exit 97; }
            bus=$(cat "$dir/bus-pid")
            DBUS_SESSION_BUS_ADDRESS=$(cat "$dir/bus-address"); export DBUS_SESSION_BUS_ADDRESS
            if [ "$EUA_TEST_KEYRING" = none ]; then
              "$@"; status=$?
              kill -KILL $bus
              exit $status
            fi
            printf %s eua-test-keyring | gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null 2>&1 &
            keyring=$!
            tries=0
            until dbus-send --session --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.NameHasOwner \
                string:org.freedesktop.secrets 2>/dev/null | grep -q "boolean true"; do
              tries=$((tries + 1))
              [ $tries -gt 200 ] && { echo "gnome-keyring-daemon did not start within 10 s" >&2; kill -KILL $keyring $bus; exit 97; }
              sleep 0.05
            done
            "$@"; status=$?
            kill -KILL $keyring $bus; wait $keyring 2>/dev/null
            exit $status
            """
        return try ProcessRunner.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", script, "sh", executable.path] + arguments,
            environment: self.environment.merging(environment) { $1 }
                .merging(["EUA_TEST_KEYRING": hasKeyring ? "unlocked" : "none"]) { $1 },
            timeout: timeout)
    }
}
