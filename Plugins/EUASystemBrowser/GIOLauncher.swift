import CGIO
import ExternalUserAgentPluginKit
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Hands a URL to a browser through GLib, returning as soon as the launch is handed off.
enum GIOLauncher {
    /// Launches the default https handler. Outside a sandbox: `g_desktop_app_info_launch_uris_as_manager`
    /// with the browser's stdout/stderr sent to /dev/null (it must never write into our output, nor keep
    /// a pipe reader waiting). In Flatpak/Snap: `g_app_info_launch_default_for_uri`, which uses the portal.
    static func openWithDefaultHandler(_ url: String, sandbox: Sandbox?) throws(GIOError) -> String {
        let context = g_app_launch_context_new()
        defer { eua_object_unref(UnsafeMutableRawPointer(context)) }
        var error: UnsafeMutablePointer<GError>?
        if let sandbox {
            if g_app_info_launch_default_for_uri(url, context, &error) == 0, let error {
                throw GIOError(taking: error)
            }
            return "the \(sandbox.rawValue) portal (org.freedesktop.portal.OpenURI)"
        }
        guard let info = g_app_info_get_default_for_uri_scheme("https") else {
            throw GIOError(domain: "g-io-error-quark", code: Int32(G_IO_ERROR_NOT_SUPPORTED.rawValue),
                           message: "no default application for x-scheme-handler/https")
        }
        defer { eua_object_unref(UnsafeMutableRawPointer(info)) }
        let id = g_app_info_get_id(info).map { String(cString: $0) } ?? "(no id)"
        guard let desktop = eua_desktop_app_info(info) else {
            // Not a desktop entry (rare): GIO's generic launch; it cannot silence the child's output.
            var uris: UnsafeMutablePointer<GList>? = g_list_append(nil, g_strdup(url))
            defer { g_list_free_full(uris, g_free); uris = nil }
            if g_app_info_launch_uris(info, uris, context, &error) == 0, let error { throw GIOError(taking: error) }
            return id
        }
        let uris = g_list_append(nil, g_strdup(url))
        defer { g_list_free_full(uris, g_free) }
        // One fork, not GLib's two (a child that forks the browser and exits at once, so that GLib need not reap
        // it): the browser is this process's child, reaped by a thread of its own. A fork copies the page tables of
        // the whole host, a Swift program with its plugins: the second one cost 0.4-0.6 ms before the browser ran.
        let flags = GSpawnFlags(rawValue: G_SPAWN_SEARCH_PATH.rawValue | G_SPAWN_STDOUT_TO_DEV_NULL.rawValue
                                    | G_SPAWN_STDERR_TO_DEV_NULL.rawValue | G_SPAWN_DO_NOT_REAP_CHILD.rawValue)
        var child: GPid = 0
        let launched = withUnsafeMutablePointer(to: &child) { child in
            g_desktop_app_info_launch_uris_as_manager(
                desktop, uris, context, flags, nil, nil,
                { _, pid, child in child?.assumingMemoryBound(to: GPid.self).pointee = pid }, child, &error)
        }
        if child > 0 {
            PluginHost.log(.debug, "system browser: launched process \(child)")
            reap(child)
        }
        if launched == 0, let error { throw GIOError(taking: error) }
        return id
    }

    /// Waits for `pid` on a thread of its own, so that a browser that ends never stays a zombie of the host (no
    /// thread to be had: it stays one until the host exits — never a wait inside `start`).
    static func reap(_ pid: GPid) {
        PluginThread.detach(orHere: false) {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
    }

    /// Runs one `$BROWSER` command with `url`, through GLib's spawn (no shell; output to /dev/null; one fork, the
    /// child reaped like the default handler's).
    static func spawn(_ arguments: [String]) throws(GIOError) {
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var error: UnsafeMutablePointer<GError>?
        let flags = GSpawnFlags(rawValue: G_SPAWN_SEARCH_PATH.rawValue | G_SPAWN_STDOUT_TO_DEV_NULL.rawValue
                                    | G_SPAWN_STDERR_TO_DEV_NULL.rawValue | G_SPAWN_DO_NOT_REAP_CHILD.rawValue)
        var child: GPid = 0
        if g_spawn_async(nil, &argv, nil, flags, nil, nil, &child, &error) == 0, let error {
            throw GIOError(taking: error)
        }
        if child > 0 { reap(child) }
    }
}

extension GIOError {
    init(domain: String, code: Int32, message: String) {
        self.domain = domain
        self.code = code
        self.message = message
    }
}
