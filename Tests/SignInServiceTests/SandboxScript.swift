// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// Shell functions that make Flatpak-shaped sandboxes with bubblewrap, as Flatpak does: `proxy APP INSTANCE` runs
/// xdg-dbus-proxy inside bwrap (its root a tmpfs holding the app's `.flatpak-info`, given with `--ro-bind-data`,
/// and `--info-fd` writing `$XDG_RUNTIME_DIR/.flatpak/INSTANCE/bwrapinfo.json`), filtered to talk only to the
/// service; `sandboxed INSTANCE ARGS…` runs the test client in a bwrap of its own, without network, with the
/// proxy's socket as its session bus. The test's script ends the proxies (`$proxies`) with the service.
enum SandboxScript {
    static let functions = #"""
        bus_socket=${DBUS_SESSION_BUS_ADDRESS#unix:path=}; bus_socket=${bus_socket%%,*}
        base="--tmpfs / --ro-bind /usr /usr --symlink usr/lib /lib --symlink usr/lib64 /lib64 --symlink usr/bin /bin --proc /proc --dev /dev"
        proxy() {
          printf '[Application]\nname=%s\n\n[Instance]\ninstance-id=%s\n' "$1" "$2" >"$HOME/info-$2"
          mkdir -p "$XDG_RUNTIME_DIR/.flatpak/$2" "$HOME/proxy-$2"
          bwrap $base --die-with-parent --bind "$HOME/proxy-$2" "$HOME/proxy-$2" --bind "$bus_socket" "$bus_socket" \
            --ro-bind-data 3 /.flatpak-info --info-fd 4 \
            -- xdg-dbus-proxy "$DBUS_SESSION_BUS_ADDRESS" "$HOME/proxy-$2/bus" --filter --talk=org.externaluseragent.SignIn \
            3<"$HOME/info-$2" 4>"$XDG_RUNTIME_DIR/.flatpak/$2/bwrapinfo.json" </dev/null >"$HOME/proxy-$2.log" 2>&1 &
          proxies="${proxies:-} $!"
          tries=0
          until [ -S "$HOME/proxy-$2/bus" ]; do
            tries=$((tries + 1)); [ $tries -gt 200 ] && { echo "== failure"; echo "proxy=$2"; return 1; }
            sleep 0.05
          done
        }
        sandboxed() {
          instance=$1; shift
          bwrap $base --unshare-net --die-with-parent --ro-bind "$HOME/proxy-$instance/bus" /run/bus --ro-bind "$CLIENT" /app/signin-client \
            --setenv DBUS_SESSION_BUS_ADDRESS unix:path=/run/bus -- /app/signin-client "$@"
        }
        """#
}
