// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An isolated desktop for `eua scheme` tests: its own XDG_DATA_HOME, XDG_CONFIG_HOME and XDG_RUNTIME_DIR
/// (0700), no session bus; runs the built `eua`, `gio` and `xdg-open` in it.
final class SchemeDesktop: @unchecked Sendable {
    let desktop: IsolatedDesktop
    let runtime: URL
    static let scheme = "com.example.app"

    init() throws {
        desktop = try IsolatedDesktop(registerHandler: false)
        runtime = try desktop.folder.folder("runtime")
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: runtime.path)
    }

    var environment: [String: String] {
        desktop.environment([
            "XDG_RUNTIME_DIR": runtime.path, "DBUS_SESSION_BUS_ADDRESS": "disabled:",
            "XDG_CURRENT_DESKTOP": "", "DISPLAY": "", "WAYLAND_DISPLAY": "", "BROWSER": "",
        ])
    }

    var applications: URL { desktop.folder.url.appendingPathComponent("data/applications") }
    var entry: URL { applications.appendingPathComponent("eua-scheme-\(Self.scheme).desktop") }
    var mimeapps: URL { desktop.folder.url.appendingPathComponent("config/mimeapps.list") }
    var socket: URL { runtime.appendingPathComponent("eua/scheme-\(Self.scheme).sock") }

    /// Runs the built `eua` with `arguments` in this desktop.
    func eua(_ arguments: [String], extra: [String: String] = [:]) throws -> ProcessResult {
        try ProcessRunner.run(
            try TestPaths.product("eua"), arguments, environment: environment.merging(extra) { $1 },
            replacingEnvironment: true, timeout: 30)
    }

    /// Runs a system tool (`gio`, `xdg-open`) in this desktop.
    func tool(_ name: String, _ arguments: [String], extra: [String: String] = [:]) throws -> ProcessResult {
        guard let tool = ProcessRunner.which(name) else {
            throw TestSupportError("\(name) is not installed (scripts/bootstrap installs libglib2.0-bin and xdg-utils)")
        }
        return try ProcessRunner.run(
            tool, arguments, environment: environment.merging(extra) { $1 },
            replacingEnvironment: true, timeout: 30)
    }

    /// Starts `eua receive` with `arguments` and waits for its first stdout line (the redirect URI).
    func startReceive(_ arguments: [String], extra: [String: String] = [:]) throws -> (InteractiveProcess, String) {
        let process = try InteractiveProcess(
            try TestPaths.product("eua"), ["receive"] + arguments,
            environment: environment.merging(extra) { $1 }, replacingEnvironment: true)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let line = process.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().first {
                return (process, String(line))
            }
            usleep(20_000)
        }
        throw TestSupportError("eua receive gave no redirect URI within 20 s; stderr:\n\(process.stderr)")
    }

    /// The callback's JSON (the last stdout line) as a dictionary.
    static func callback(_ stdout: String) -> [String: String]? {
        guard let last = stdout.split(separator: "\n").last else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(last.utf8))) as? [String: String]
    }

    /// Sends `bytes` straight to the scheme's socket, as a handler would, and returns the one-line answer.
    func rawHandOff(_ bytes: [UInt8]) throws -> String {
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestSupportError("socket failed") }
        defer { close(fd) }
        var limit = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in self.socket.path.utf8.enumerated() { raw[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else { throw TestSupportError("connect to \(self.socket.path) failed: errno \(errno)") }
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        shutdown(fd, Int32(SHUT_WR))
        var reply = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 512)
        while true {
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { break }
            reply += buffer[..<count]
        }
        return String(decoding: reply, as: UTF8.self).trimmingCharacters(in: .newlines)
    }
}
