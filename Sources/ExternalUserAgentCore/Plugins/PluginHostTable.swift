// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif
import CExternalUserAgentPlugin
import Logging

/// Where a plugin's log lines go: the host's logger, tagged with the plugin's path.
final class PluginLogSink: Sendable {
    let logger: Logger
    let path: String

    init(logger: Logger, path: String) {
        self.logger = logger
        self.path = path
    }

    /// The most bytes of one log message that are kept.
    static let maximumMessageBytes = 16 << 10

    /// A plugin's message, cut at ``maximumMessageBytes`` (marked with `…`) so a runaway string costs nothing.
    static func text(_ message: UnsafePointer<CChar>) -> String {
        let length = strnlen(message, maximumMessageBytes + 1)
        let kept = min(length, maximumMessageBytes)
        let text = String(decoding: UnsafeRawBufferPointer(start: message, count: kept), as: UTF8.self)
        return length > maximumMessageBytes ? text + "…" : text
    }

    func log(level: Int32, message: String) {
        let swiftLevel: Logger.Level =
            switch level {
            case ...Int32(EUA_LOG_TRACE.rawValue): .trace
            case Int32(EUA_LOG_DEBUG.rawValue): .debug
            case Int32(EUA_LOG_INFO.rawValue): .info
            case Int32(EUA_LOG_NOTICE.rawValue): .notice
            case Int32(EUA_LOG_WARNING.rawValue): .warning
            default: .error
            }
        logger.log(level: swiftLevel, "\(message)", metadata: ["plugin": "\(path)"])
    }
}

/// Makes the host table handed to one plugin. It lives for the life of the process,
/// as the ABI promises, so it is deliberately never freed.
enum PluginHostTable {
    static func make(logger: Logger, path: String) -> UnsafePointer<eua_host_table> {
        let sink = Unmanaged.passRetained(PluginLogSink(logger: logger, path: path))
        let table = UnsafeMutablePointer<eua_host_table>.allocate(capacity: 1)
        table.initialize(
            to: eua_host_table(
                abi_version: EUA_PLUGIN_ABI_VERSION,
                struct_size: UInt32(MemoryLayout<eua_host_table>.size),
                context: sink.toOpaque(),
                log: { context, level, message in
                    guard let context, let message else { return }
                    Unmanaged<PluginLogSink>.fromOpaque(context).takeUnretainedValue()
                        .log(level: level, message: PluginLogSink.text(message))
                }))
        return UnsafePointer(table)
    }
}
