// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import CGIO
import ExternalUserAgentPluginKit

/// Sends GLib's and GIO's warnings to the host's log instead of stderr (a CLI's output must stay clean,
/// and "no session bus" or "no display" is not worth a warning on the user's terminal).
enum GLibLogRouting {
    nonisolated(unsafe) private static var installed = false

    /// Called once from the entry symbol, on the loading thread.
    static func install() {
        guard !installed else { return }
        installed = true
        let levels = GLogLevelFlags(rawValue: G_LOG_LEVEL_MASK.rawValue | G_LOG_FLAG_RECURSION.rawValue)
        for domain in ["GLib-GIO", "GLib", "GLib-GObject"] {
            g_log_set_handler(
                domain, levels,
                { domain, level, message, _ in
                    let text = message.map { String(cString: $0) } ?? ""
                    let name = domain.map { String(cString: $0) } ?? "GLib"
                    let critical = level.rawValue & (G_LOG_LEVEL_ERROR.rawValue | G_LOG_LEVEL_CRITICAL.rawValue) != 0
                    PluginHost.log(critical ? .error : .debug, "\(name): \(text)")
                }, nil)
        }
    }
}
