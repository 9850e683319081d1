// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentRules
import ExternalUserAgentCore

/// A command's failure, printed as `Error: <message>` by the argument parser; the message is escaped for the
/// terminal (``TerminalText``; its line breaks are kept, as in ``Output/errorMessage(_:)``), since it often
/// quotes a server or a plugin.
package struct CommandFailure: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) {
        self.description = TerminalText.escaped(description, keepingLineBreaks: true)
    }

    /// Runs `work`, turning an ``ExternalUserAgentError`` into its message and code.
    package static func reporting<Value: Sendable>(_ work: () async throws -> Value) async throws -> Value {
        do {
            return try await work()
        } catch let error as ExternalUserAgentError {
            throw CommandFailure("\(error.commandLineReport)")
        }
    }
}
