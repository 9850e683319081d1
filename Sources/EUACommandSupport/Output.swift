// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentRules
#if canImport(Glibc)
import ExternalUserAgentCore
import Glibc
#endif

/// Output for the command-line tools: stdout is for results, stderr for people.
///
/// Everything a command prints that may hold text from outside the project (a server, a plugin, a
/// configuration file) goes through ``line(_:)``, ``lines(_:)``, ``json(_:)`` or ``errorLine(_:)``, which
/// escape what a terminal could act on (``TerminalText``). ``standardError(_:)`` writes as is: only for the
/// project's own text, such as the waiting display's cursor controls.
package enum Output {
    /// Prints one human-readable line on stdout, escaped.
    package static func line(_ text: String) {
        print(TerminalText.escaped(text))
    }

    /// Prints human-readable lines on stdout, each escaped (a line break inside one is shown as `\x0a`).
    package static func lines(_ lines: [String]) {
        for line in lines { print(TerminalText.escaped(line)) }
    }

    /// Prints one line of JSON on stdout; DEL, C1 and bidi controls, which JSON may carry raw, become `\uXXXX`.
    package static func json(_ text: String) {
        print(TerminalText.escaped(text, style: .json))
    }

    /// Writes one human-readable line on stderr, escaped (line breaks too), with its line break.
    package static func errorLine(_ text: String) {
        standardError(TerminalText.escaped(text) + "\n")
    }

    /// Writes an error message the project lays out over several lines (selection's "every candidate lost"
    /// list) on stderr: its line breaks are kept, every other control character is escaped.
    package static func errorMessage(_ text: String) {
        standardError(TerminalText.escaped(text, keepingLineBreaks: true) + "\n")
    }

    /// Flushes every C stream (stdout's buffered lines reach the reader now).
    package static func flush() {
        fflush(nil)
    }

    /// Writes `text` to stderr unbuffered.
    package static func standardError(_ text: String) {
        flush()
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress! + offset, $0.count - offset) }
            if written <= 0 { return }
            offset += written
        }
    }

    /// Flushes and ends the process with `status`.
    package static func exit(_ status: Int32) -> Never {
        flush()
        Glibc.exit(status)
    }
}
