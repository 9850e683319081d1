// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Foundation

/// The outcome of running a program to its end.
public struct ProcessResult: Sendable {
    /// The exit status, or minus the number of the signal that ended the program.
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs programs for the tests: no shell, output captured, a time limit.
public enum ProcessRunner {
    /// Runs `executable` with `arguments` and `environment` (merged over this process's unless `replacing`).
    /// A status of minus a signal's number means that signal ended the program.
    public static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:],
        replacingEnvironment: Bool = false, stdin: String? = nil,
        timeout: TimeInterval = 60
    ) throws -> ProcessResult {
        // stdout and stderr are read on the child's own thread while it runs, so a full pipe never blocks it.
        let child = try ChildProcess(
            executable, arguments, environment: environment,
            replacingEnvironment: replacingEnvironment)
        let command = "\(executable.lastPathComponent) \(arguments.joined(separator: " "))"
        let deadline = Date().addingTimeInterval(timeout)
        if let stdin { child.write(Data(stdin.utf8), timeout: timeout) }
        child.closeInput()
        guard let termination = child.waitForExit(timeout: deadline.timeIntervalSinceNow) else {
            child.terminate()
            throw TestSupportError("\(command) ran longer than \(timeout) s")
        }
        guard child.waitForOutput(timeout: 10) else {
            throw TestSupportError(
                "\(command) ended, but its stdout or stderr stayed open 10 s longer: "
                    + "a program it started in the background still holds them")
        }
        return ProcessResult(
            status: termination.status,
            stdout: String(decoding: child.stdout, as: UTF8.self),
            stderr: String(decoding: child.stderr, as: UTF8.self))
    }

    /// The first program named `name` on `PATH`.
    public static func which(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}
