// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Foundation

/// A program the test talks to while it runs: writes lines to its stdin, waits for text on its
/// stdout/stderr, sends it signals. Every wait blocks: call them inside ``offThePool(_:)``.
public final class InteractiveProcess: @unchecked Sendable {
    private let child: ChildProcess

    public init(
        _ executable: URL, _ arguments: [String], environment: [String: String],
        replacingEnvironment: Bool = false
    ) throws {
        child = try ChildProcess(
            executable, arguments, environment: environment,
            replacingEnvironment: replacingEnvironment)
    }

    public var stdout: String { String(decoding: child.stdout, as: UTF8.self) }
    public var stderr: String { String(decoding: child.stderr, as: UTF8.self) }
    public var pid: Int32 { child.pid }

    /// Waits until stderr satisfies `condition`; returns stderr then, or throws after `timeout`.
    @discardableResult
    public func waitForStderr(timeout: TimeInterval = 30, _ condition: (String) -> Bool) throws -> String {
        try waitFor("stderr", \.stderr, timeout: timeout, condition)
    }

    /// Waits until stdout satisfies `condition`; returns stdout then, or throws after `timeout`.
    @discardableResult
    public func waitForStdout(timeout: TimeInterval = 30, _ condition: (String) -> Bool) throws -> String {
        try waitFor("stdout", \.stdout, timeout: timeout, condition)
    }

    private func waitFor(
        _ name: String, _ stream: KeyPath<InteractiveProcess, String>, timeout: TimeInterval,
        _ condition: (String) -> Bool
    ) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let text = self[keyPath: stream]
            if condition(text) { return text }
            if let termination = child.termination {
                _ = child.waitForOutput(timeout: max(deadline.timeIntervalSinceNow, 5))
                let final = self[keyPath: stream]
                if condition(final) { return final }
                throw TestSupportError(
                    "the program ended (status \(termination.status)) before the expected "
                        + "output; \(name):\n\(final)")
            }
            usleep(20_000)
        }
        throw TestSupportError(
            "the expected output did not come within \(timeout) s; \(name):\n\(self[keyPath: stream])")
    }

    /// Writes `line` and a newline to stdin.
    public func send(line: String) {
        child.write(Data((line + "\n").utf8))
    }

    public func closeInput() { child.closeInput() }

    public func signal(_ number: Int32) { child.signal(number) }

    /// Waits for the end; kills it and throws after `timeout`.
    public func waitForExit(timeout: TimeInterval = 60) throws -> ProcessResult {
        guard let termination = child.waitForExit(timeout: timeout) else {
            child.terminate()
            throw TestSupportError("the program ran longer than \(timeout) s; stderr:\n\(stderr)")
        }
        closeInput()
        guard child.waitForOutput(timeout: 10) else {
            throw TestSupportError(
                "the program ended, but its stdout or stderr stayed open 10 s longer (a program it "
                    + "started in the background holds them); stderr:\n\(stderr)")
        }
        return ProcessResult(status: termination.status, stdout: stdout, stderr: stderr)
    }
}

/// A GET over a raw connection, not following redirects: the status and the `Location` header.
public func rawGet(_ url: URL) throws -> (status: Int, location: String?) {
    guard let host = url.host, let port = url.port else {
        throw TestSupportError("not an http://host:port URL: \(url)")
    }
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
