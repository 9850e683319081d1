// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import ExternalUserAgentCore

/// Each plugin's `describe()` tried first in a child of the service (`eua-signin-service --plugin-check PARENT`), so
/// that a plugin that crashes while it is loaded is refused instead of taking the service down: the service then loads
/// only the files that passed. The child reads one JSON line (the files, in search order) and writes `checking PATH`
/// before and `checked` after each; a child that dies of a signal names the file it was checking, and a new child
/// checks the files after it.
enum PluginCheck {
    /// How long the checks may take in all; past it, the files not yet checked are loaded without one (the loader's
    /// own deadlines still bound a `describe()` that hangs).
    static let timeout: Duration = .seconds(30)

    /// The files among `files` whose loading crashed a child, each with the signal's name.
    static func crashing(_ files: [String], executable: String = "/proc/self/exe") -> [String: String] {
        var crashed: [String: String] = [:]
        var remaining = files
        let deadline = ContinuousClock.now + timeout
        while !remaining.isEmpty, ContinuousClock.now < deadline {
            guard let (pending, signal) = check(remaining, executable: executable, until: deadline),
                let index = remaining.firstIndex(of: pending)
            else { break }
            Log.error(
                "the plugin \(pending) crashed (\(signal)) while it was loaded; it is not used: report it to its "
                    + "author, or remove it from the plugin path")
            crashed[pending] = signal
            remaining = Array(remaining[(index + 1)...])
        }
        return crashed
    }

    /// Runs one child over `files`: the file it was checking and the signal, when it died of one.
    private static func check(
        _ files: [String], executable: String,
        until deadline: ContinuousClock.Instant
    ) -> (String, String)? {
        guard case .success(let control) = ChildProcess.socketPair() else { return nil }
        guard case .success(let output) = ChildProcess.socketPair() else {
            close(control.0)
            close(control.1)
            return nil
        }
        let spawned = ChildProcess.spawn(
            [executable, "--plugin-check", String(getpid())],
            input: .descriptor(control.1), output: .descriptor(output.1), errors: .null,
            environment: ["SWIFT_BACKTRACE": "enable=no"])
        close(control.1)
        close(output.1)
        defer {
            close(control.0)
            close(output.0)
        }
        guard case .success(let child) = spawned,
            let request = try? JSONEncoder().encode(files)
        else { return nil }
        writeAll(String(decoding: request, as: UTF8.self) + "\n", to: control.0)
        var lines = LineBuffer()
        var pending: String?
        reading: while !pollInput([output.0], until: deadline).isEmpty {
            guard let bytes = readAvailable(output.0), !bytes.isEmpty, let complete = lines.add(bytes) else { break }
            for line in complete {
                if line.hasPrefix("checking ") { pending = String(line.dropFirst("checking ".count)) }
                if line == "checked" { pending = nil }
                if line == "done" { break reading }
            }
        }
        let (status, _) = child.reap(until: min(deadline, .now + .seconds(5)))
        guard let pending, let signal = ChildProcess.signal(of: status), signal != SIGKILL else { return nil }
        return (pending, ChildProcess.name(ofSignal: signal))
    }

    /// The child: loads each file it is given, one after the other; never returns.
    static func main(parent: String) -> Never {
        let (control, output) = AgentStep.begin(parent: parent, as: "--plugin-check")
        guard let line = AgentStep.firstLine(from: control, until: .now + .seconds(10)),
            let files = try? JSONDecoder().decode([String].self, from: Data(line.utf8))
        else { exit(5) }
        let loader = PluginLoader()
        for file in files {
            writeAll("checking \(file)\n", to: output)
            var catalog = PluginCatalog()
            loader.load(file: file, into: &catalog)
            writeAll("checked\n", to: output)
        }
        writeAll("done\n", to: output)
        exit(0)
    }
}
