import Foundation

/// A program the test talks to while it runs: writes lines to its stdin, waits for text on its
/// stdout/stderr, sends it signals. Every wait blocks: call them inside ``offThePool(_:)``.
public final class InteractiveProcess: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let lock = NSLock()
    private var out = Data()
    private var err = Data()
    private let readers = DispatchGroup()

    public init(_ executable: URL, _ arguments: [String], environment: [String: String],
                replacingEnvironment: Bool = false) throws {
        process.executableURL = executable
        process.arguments = arguments
        var env = replacingEnvironment ? [:] : ProcessInfo.processInfo.environment
        env.merge(environment) { $1 }
        process.environment = env
        let outPipe = Pipe(), errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = input
        try process.run()
        for (handle, isErr) in [(outPipe.fileHandleForReading, false), (errPipe.fileHandleForReading, true)] {
            readers.enter()
            DispatchQueue.global().async { [self] in
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    lock.lock()
                    if isErr { err.append(chunk) } else { out.append(chunk) }
                    lock.unlock()
                }
                readers.leave()
            }
        }
    }

    public var stdout: String { lock.lock(); defer { lock.unlock() }; return String(decoding: out, as: UTF8.self) }
    public var stderr: String { lock.lock(); defer { lock.unlock() }; return String(decoding: err, as: UTF8.self) }
    public var pid: Int32 { process.processIdentifier }

    /// Waits until stderr satisfies `condition`; returns stderr then, or throws after `timeout`.
    @discardableResult
    public func waitForStderr(timeout: TimeInterval = 30, _ condition: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let text = stderr
            if condition(text) { return text }
            if !process.isRunning {
                readers.wait()
                let final = stderr
                if condition(final) { return final }
                throw TestSupportError("the program ended (status \(process.terminationStatus)) before the expected "
                                       + "output; stderr:\n\(final)")
            }
            usleep(20_000)
        }
        throw TestSupportError("the expected output did not come within \(timeout) s; stderr:\n\(stderr)")
    }

    /// Writes `line` and a newline to stdin.
    public func send(line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    public func closeInput() { try? input.fileHandleForWriting.close() }

    public func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for the end; kills it and throws after `timeout`.
    public func waitForExit(timeout: TimeInterval = 60) throws -> ProcessResult {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning {
            process.terminate()
            throw TestSupportError("the program ran longer than \(timeout) s; stderr:\n\(stderr)")
        }
        closeInput()
        readers.wait()
        return ProcessResult(status: process.terminationStatus, stdout: stdout, stderr: stderr)
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}

/// A GET over a raw connection, not following redirects: the status and the `Location` header.
public func rawGet(_ url: URL) throws -> (status: Int, location: String?) {
    guard let host = url.host, let port = url.port else { throw TestSupportError("not an http://host:port URL: \(url)") }
    let connection = try RawConnection(host: host, port: port)
    defer { connection.close() }
    var target = url.path.isEmpty ? "/" : url.path
    if let query = url.query { target += "?" + query }
    _ = connection.send("GET \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n\r\n")
    let response = connection.readAll()
    let location = response.split(separator: "\r\n").first { $0.lowercased().hasPrefix("location:") }
        .map { String($0.dropFirst("location:".count)).trimmingCharacters(in: .whitespaces) }
    return (RawConnection.status(of: response), location)
}
