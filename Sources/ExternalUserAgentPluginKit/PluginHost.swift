// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import CExternalUserAgentPlugin
import Synchronization

/// The host's services as a plugin sees them: its log.
public enum PluginHost {
    /// Log levels, as the C ABI numbers them.
    public enum Level: Int32, Sendable {
        /// Step by step detail.
        case trace = 0
        /// What a developer looking into a problem needs.
        case debug
        /// A normal event worth noting.
        case info
        /// A normal but significant event.
        case notice
        /// Something went wrong and was worked around.
        case warning
        /// Something failed.
        case error
    }

    private static let table = Mutex<HostTable?>(nil)

    static func install(_ host: UnsafePointer<eua_host_table>?) {
        table.withLock { $0 = host.map(HostTable.init) }
    }

    /// The host's ABI major version (0 before the plugin is loaded).
    public static var abiVersion: UInt32 {
        table.withLock { $0?.pointer.pointee.abi_version ?? 0 }
    }

    /// Writes to the host's log. Never pass tokens, codes, verifiers or secrets.
    public static func log(_ level: Level, _ message: String) {
        guard let host = table.withLock({ $0 })?.pointer.pointee, let log = host.log else { return }
        message.withCString { log(host.context, level.rawValue, $0) }
    }

    private struct HostTable: @unchecked Sendable {
        let pointer: UnsafePointer<eua_host_table>
    }
}
