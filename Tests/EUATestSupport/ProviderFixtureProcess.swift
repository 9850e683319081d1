// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real provider run from a fixture script (`Tests/Fixtures/<name>/provider.py`), the start-up every provider
/// fixture shares: a throwaway folder, `python3 provider.py serve … --dir FOLDER` with its output in `serve.out` and
/// `serve.log`, ready when it prints `listening URL` (within a deadline), and the script's other commands run
/// against the same folder. ``DjangoProvider`` and ``GlewlwydProvider`` add what their provider is.
public final class ProviderFixtureProcess: @unchecked Sendable {
    /// `http://127.0.0.1:PORT`, as the script printed it.
    public let baseURL: String
    /// The provider's folder (config, database, keys, logs); removed by ``stop(grace:)``.
    public let folder: URL
    /// The fixture script.
    public let script: URL
    /// Arguments put before the script's (`-W ignore`).
    private let pythonArguments: [String]
    /// What to say when a command of the script fails: what to check.
    private let failureHint: String
    private let child: ChildProcess

    /// Starts `script serve serveArguments --dir FOLDER` in a new folder named `name-UUID` and waits up to `timeout`
    /// seconds for its `listening` line; `prepare` runs first (as `script prepare… --dir FOLDER`, e.g. to migrate a
    /// database). `startHint` ends the error when it exits at start; `failureHint` ends a failed command's.
    public init(
        name: String, script: URL, serveArguments: [String], prepare: [String]? = nil,
        pythonArguments: [String] = [], timeout: TimeInterval, startHint: String, failureHint: String
    ) throws {
        self.script = script
        self.pythonArguments = pythonArguments
        self.failureHint = failureHint
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        if let prepare {
            _ = try Self.run(
                prepare, script: script, pythonArguments: pythonArguments, folder: folder, hint: failureHint)
        }
        let out = folder.appendingPathComponent("serve.out")
        let log = folder.appendingPathComponent("serve.log")
        child = try ChildProcess(
            try Self.python(), pythonArguments + [script.path, "serve"] + serveArguments + ["--dir", folder.path],
            stdin: .null, stdout: .file(out.path), stderr: .file(log.path))
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let text = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening ") }) {
                baseURL = String(line.dropFirst("listening ".count))
                return
            }
            if !child.isRunning {
                let errors = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                throw TestSupportError("\(name) exited at start (\(startHint)):\n\(errors)")
            }
            usleep(50_000)
        }
        child.terminate()
        throw TestSupportError("\(name) did not start within \(Int(timeout)) s; its logs are in \(folder.path)")
    }

    /// Runs `script arguments… --dir FOLDER` (60 s at most) and returns its stdout; a failure names the command.
    public func run(_ arguments: [String]) throws -> String {
        try Self.run(arguments, script: script, pythonArguments: pythonArguments, folder: folder, hint: failureHint)
    }

    /// Ends the provider (`grace` seconds after SIGTERM, then SIGKILL) and removes its folder.
    public func stop(grace: TimeInterval = 1) {
        child.terminate(grace: grace)
        try? FileManager.default.removeItem(at: folder)
    }

    private static func run(
        _ arguments: [String], script: URL, pythonArguments: [String], folder: URL,
        hint: String
    ) throws -> String {
        let result = try ProcessRunner.run(
            try python(), pythonArguments + [script.path] + arguments + ["--dir", folder.path],
            timeout: 60)
        guard result.status == 0 else {
            throw TestSupportError(
                "\(script.deletingLastPathComponent().lastPathComponent)/provider.py "
                    + "\(arguments.first ?? "") failed (\(result.status)); \(hint)\n\(result.stderr)")
        }
        return result.stdout
    }

    private static func python() throws -> URL {
        guard let python = ProcessRunner.which("python3") else {
            throw TestSupportError("python3 is not on PATH; run scripts/bootstrap")
        }
        return python
    }
}
