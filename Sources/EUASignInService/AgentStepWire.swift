// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// What passes between the service and an agent step (`eua-signin-service --agent-step PARENT`), one line each.
///
/// In (parent → child): one JSON line, ``Request``; later, optionally, the line `dismiss`. Out (child → parent), one
/// line per event: `presented`; `redirect URL` (an agent that saw the redirect itself); `failed CODE MESSAGE` (the
/// last line; CODE an ``ExternalUserAgentError`` code name). A line is at most ``maximumLine`` bytes.
enum AgentStepWire {
    /// The longest line either side reads; a longer one ends the step.
    static let maximumLine = 256 * 1024

    /// The step's one job: show `url` with the agent `agent` of the plugin file `plugin`.
    struct Request: Codable, Sendable, Equatable {
        var plugin: String
        var agent: String
        var options: [String: String]
        var url: String
        var redirectURI: String
        /// Seconds, when the sign-in has a limit.
        var timeout: Double?

        enum CodingKeys: String, CodingKey {
            case plugin, agent, options, url
            case redirectURI = "redirect_uri"
            case timeout
        }

        /// The request as one line (JSON has no raw newline).
        func line() throws -> String {
            String(decoding: try JSONEncoder().encode(self), as: UTF8.self) + "\n"
        }

        /// The request a line holds, or `nil`.
        init?(line: some Collection<UInt8>) {
            guard let request = try? JSONDecoder().decode(Request.self, from: Data(line)) else { return nil }
            self = request
        }

        init(
            plugin: String, agent: String, options: [String: String], url: String, redirectURI: String, timeout: Double?
        ) {
            (self.plugin, self.agent, self.options, self.url, self.redirectURI, self.timeout) = (
                plugin, agent, options, url, redirectURI, timeout
            )
        }
    }

    /// The line the parent sends to end the step early.
    static let dismiss = "dismiss"

    /// One event of the step.
    enum Event: Equatable, Sendable {
        case presented
        case redirect(String)
        case failed(code: String, message: String)

        /// The event as one line (line breaks in a message become spaces).
        var line: String {
            switch self {
            case .presented: "presented\n"
            case .redirect(let url): "redirect \(Self.oneLine(url))\n"
            case .failed(let code, let message): "failed \(Self.oneLine(code)) \(Self.oneLine(message))\n"
            }
        }

        /// The event a line (without its newline) holds, or `nil`.
        init?(line: String) {
            if line == "presented" {
                self = .presented
                return
            }
            let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            switch parts.first {
            case "redirect" where parts.count >= 2: self = .redirect(parts.dropFirst().joined(separator: " "))
            case "failed" where parts.count == 3: self = .failed(code: String(parts[1]), message: String(parts[2]))
            default: return nil
            }
        }

        private static func oneLine(_ text: String) -> String {
            String(text.map { $0 == "\n" || $0 == "\r" || $0 == "\r\n" ? " " : $0 })
        }
    }
}

/// Bytes read from a descriptor, cut into lines.
struct LineBuffer {
    private var pending: [UInt8] = []

    /// Adds `bytes`; returns the lines they complete (without newlines), or `nil` when a line grew past
    /// ``AgentStepWire/maximumLine``.
    mutating func add(_ bytes: some Collection<UInt8>) -> [String]? {
        pending += bytes
        var lines: [String] = []
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: pending[..<newline], as: UTF8.self))
            pending.removeSubrange(...newline)
        }
        return pending.count > AgentStepWire.maximumLine ? nil : lines
    }
}

/// `poll` on `descriptors` for input until `deadline`: the ones ready (input, end or error), empty at the deadline.
func pollInput(_ descriptors: [Int32], until deadline: ContinuousClock.Instant) -> [Int32] {
    while true {
        let left = deadline - ContinuousClock.now
        guard left > .zero else { return [] }
        var pollers = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let milliseconds = Int32(
            clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
        let ready = poll(&pollers, nfds_t(pollers.count), milliseconds)
        if ready < 0, errno == EINTR { continue }
        if ready < 0 { return descriptors }
        if ready > 0 { return pollers.filter { $0.revents != 0 }.map(\.fd) }
    }
}

/// Reads what `descriptor` has (after `poll` said so): the bytes, empty at its end, `nil` on an error.
func readAvailable(_ descriptor: Int32) -> [UInt8]? {
    var buffer = [UInt8](repeating: 0, count: 16 * 1024)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        return count < 0 ? nil : Array(buffer[..<count])
    }
}

/// Writes all of `text` to `descriptor`; `false` when it could not (the other side is gone).
@discardableResult
func writeAll(_ text: String, to descriptor: Int32) -> Bool {
    var text = text
    return text.withUTF8 { bytes in
        var offset = 0
        while offset < bytes.count {
            let count = send(descriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }
}
