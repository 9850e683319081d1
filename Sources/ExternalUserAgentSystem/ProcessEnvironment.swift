// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif

/// The process's environment as the commands read it, straight from `environ`: `ProcessInfo`'s first use costs
/// every command start-up work inside FoundationEssentials (measured: Benchmarks/README.md).
package enum ProcessEnvironment {
    /// Every `NAME=value` entry of `environ`.
    package static func current() -> [String: String] {
        variables(in: environ)
    }

    /// Every `NAME=value` entry of the NULL-terminated list `entries`; for a name given twice, the first, as
    /// `getenv(3)` (and so GLib, libcurl and the plugins) reads it. An entry without `=`, or with nothing before
    /// it, is skipped.
    package static func variables(in entries: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> [String: String] {
        var variables: [String: String] = [:]
        var entry = entries
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "="), equals != text.startIndex {
                let name = String(text[..<equals])
                if variables[name] == nil { variables[name] = String(text[text.index(after: equals)...]) }
            }
            entry += 1
        }
        return variables
    }
}
