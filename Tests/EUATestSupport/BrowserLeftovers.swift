// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Foundation

/// What owned browser instances leave behind: processes whose command line mentions an ephemeral
/// browser folder (`…/eua-browser-…`), and those folders in the temporary directory.
public enum BrowserLeftovers {
    public static func scan() -> (processes: [Int32], folders: [String]) {
        var processes: [Int32] = []
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry),
                let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
            else { continue }
            if String(decoding: data, as: UTF8.self).contains("/eua-browser-") { processes.append(pid) }
        }
        let tmp = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        let folders = ((try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? [])
            .filter { $0.hasPrefix("eua-browser-") }.map { tmp + "/" + $0 }
        return (processes.sorted(), folders.sorted())
    }

    /// The parent process id of `pid`, from /proc.
    public static func parent(of pid: Int32) -> Int32? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat") else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }
}
