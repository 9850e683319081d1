import Foundation

/// The outcome of running a program to its end.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs programs for the tests: no shell, output captured, a time limit.
public enum ProcessRunner {
    /// Runs `executable` with `arguments` and `environment` (merged over this process's unless `replacing`).
    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
                           replacingEnvironment: Bool = false, stdin: String? = nil,
                           timeout: TimeInterval = 60) throws -> ProcessResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = replacingEnvironment ? [:] : ProcessInfo.processInfo.environment
        env.merge(environment) { $1 }
        process.environment = env
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try? input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(timeout)
        // Read while waiting so a full pipe never blocks the child.
        let outData = LockedData(), errData = LockedData()
        let group = DispatchGroup()
        for (handle, sink) in [(out.fileHandleForReading, outData), (err.fileHandleForReading, errData)] {
            group.enter()
            DispatchQueue.global().async {
                sink.set(handle.readDataToEndOfFile())
                group.leave()
            }
        }
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning {
            process.terminate()
            throw TestSupportError("\(executable.lastPathComponent) \(arguments.joined(separator: " ")) ran longer than \(timeout) s")
        }
        group.wait()
        return ProcessResult(status: process.terminationStatus,
                             stdout: String(decoding: outData.get(), as: UTF8.self),
                             stderr: String(decoding: errData.get(), as: UTF8.self))
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

private final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func set(_ value: Data) { lock.lock(); data = value; lock.unlock() }
    func get() -> Data { lock.lock(); defer { lock.unlock() }; return data }
}
