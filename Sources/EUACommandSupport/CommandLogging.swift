import Logging

/// Logging for the command-line tools: stderr only (stdout is for results), level from EUA_LOG_LEVEL.
package enum CommandLogging {
    package static func bootstrap(environment: [String: String]) {
        let level = environment["EUA_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
