#if canImport(Glibc)
import Glibc
#endif

/// Low-level output for the command-line tool: stdout is for results, stderr for people.
package enum Output {
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
