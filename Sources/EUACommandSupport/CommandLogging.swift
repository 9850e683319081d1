// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentRules
import ExternalUserAgentCore
import Logging

/// Logging for the command-line tools: stderr only (stdout is for results), level from EUA_LOG_LEVEL.
/// Messages and metadata are escaped for the terminal (``TerminalText``): plugins log through the host.
package enum CommandLogging {
    package static func bootstrap(environment: [String: String]) {
        let level = environment["EUA_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return TerminalSafeLogHandler(wrapping: handler)
        }
    }

    /// A logger that drops everything: for a trial selection whose warnings would mislead.
    package static let silent = Logger(label: "eua.silent") { _ in SwiftLogNoOpLogHandler() }
}

/// A log handler that escapes each message and metadata value before the handler it wraps writes it.
struct TerminalSafeLogHandler: LogHandler {
    private var wrapped: any LogHandler

    init(wrapping handler: any LogHandler) {
        wrapped = handler
    }

    var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { wrapped.metadataProvider }
        set { wrapped.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var safe = event
        safe.message = "\(TerminalText.escaped(event.message.description))"
        safe.metadata = event.metadata?.mapValues(Self.escaped)
        wrapped.log(event: safe)
    }

    private static func escaped(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): .string(TerminalText.escaped(text))
        case .stringConvertible(let item): .string(TerminalText.escaped(item.description))
        case .array(let items): .array(items.map(escaped))
        case .dictionary(let items): .dictionary(items.mapValues(escaped))
        }
    }
}
