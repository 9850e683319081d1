// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import CGIO
import ExternalUserAgentPluginKit
import FoundationEssentials

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
            throw GIOError(
                domain: "g-io-error-quark", code: Int32(G_IO_ERROR_NOT_SUPPORTED.rawValue),
                message: "no default application for x-scheme-handler/https")
        }
        defer { eua_object_unref(UnsafeMutableRawPointer(info)) }
        let id = g_app_info_get_id(info).map { String(cString: $0) } ?? "(no id)"
        guard let desktop = eua_desktop_app_info(info) else {
            // Not a desktop entry (rare): GIO's generic launch; it cannot silence the child's output.
            var uris: UnsafeMutablePointer<GList>? = g_list_append(nil, g_strdup(url))
            defer {
                g_list_free_full(uris, g_free)
                uris = nil
            }
            if g_app_info_launch_uris(info, uris, context, &error) == 0, let error { throw GIOError(taking: error) }
            return id
        }
        let uris = g_list_append(nil, g_strdup(url))
        defer { g_list_free_full(uris, g_free) }
        var child: GPid = 0
        let launched = withUnsafeMutablePointer(to: &child) { child in
            g_desktop_app_info_launch_uris_as_manager(
                desktop, uris, context, spawnFlags, nil, nil,
                { _, pid, child in child?.assumingMemoryBound(to: GPid.self).pointee = pid }, child, &error)
        }
        if child > 0 {
            PluginHost.log(.debug, "system browser: launched process \(child)")
            PluginThread.reap(child)
        }
        if launched == 0, let error { throw GIOError(taking: error) }
        return id
    }

    /// How both launches spawn: the program looked up on `PATH`, its stdout and stderr to /dev/null, and in one fork,
    /// not GLib's two (a child that forks the browser and exits at once, so that GLib need not reap it): the browser
    /// is this process's child, reaped by a thread of its own (``PluginThread/reap(_:orHere:onExit:)``). A fork
    /// copies the page tables of the whole host, a Swift program with its plugins: the second one cost 0.4-0.6 ms
    /// before the browser ran.
    static let spawnFlags = GSpawnFlags(
        rawValue: G_SPAWN_SEARCH_PATH.rawValue | G_SPAWN_STDOUT_TO_DEV_NULL.rawValue
            | G_SPAWN_STDERR_TO_DEV_NULL.rawValue | G_SPAWN_DO_NOT_REAP_CHILD.rawValue)

    /// Runs one `$BROWSER` command with `url`, through GLib's spawn (no shell; output to /dev/null; one fork, the
    /// child reaped like the default handler's).
    static func spawn(_ arguments: [String]) throws(GIOError) {
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var error: UnsafeMutablePointer<GError>?
        var child: GPid = 0
        if g_spawn_async(nil, &argv, nil, spawnFlags, nil, nil, &child, &error) == 0, let error {
            throw GIOError(taking: error)
        }
        if child > 0 { PluginThread.reap(child) }
    }
}

extension GIOError {
    init(domain: String, code: Int32, message: String) {
        self.domain = domain
        self.code = code
        self.message = message
    }
}
