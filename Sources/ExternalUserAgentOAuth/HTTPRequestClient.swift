#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PluginNet

/// PROTOTYPE (Benchmarks lever "no SwiftNIO in eua-oauth"): one HTTP/1.1 request over PluginNet's plain
/// sockets; https is not wired (it would go over the libcurl client).
struct HTTPRequestClient: Sendable {
    typealias Response = HTTPResponse

    var timeout: Duration
    var maximumBodyBytes: Int

    func execute(_ method: String, _ url: URL, headers: [(String, String)] = [], body: [UInt8]? = nil,
                 start: ContinuousClock.Instant = .now) async throws -> Response {
        let target = try HTTPTarget(url)
        guard !target.isTLS else {
            throw HTTPRequestError(.tlsFailed, server: target.server, "prototype: https is not wired")
        }
        let deadline = Deadline(after: timeout - (ContinuousClock.now - start))
        let stop = try StopSignal()
        defer { stop.close() }
        do {
            return try await withTaskCancellationHandler {
                let connection = try TCPConnection.connect(host: target.host, port: target.port, deadline: deadline, stop: stop)
                var lines = ["\(method) \(target.requestTarget) HTTP/1.1", "Host: \(target.hostHeader)", "Connection: close"]
                lines += headers.map { "\($0.0): \($0.1)" }
                if let body { lines.append("Content-Length: \(body.count)") }
                try connection.send(Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + (body ?? []), until: deadline)
                var parser = HTTPResponseParser(maximumBodyBytes: maximumBodyBytes)
                var buffer = [UInt8](repeating: 0, count: 16 * 1024)
                while true {
                    let count = try connection.receive(into: &buffer, until: deadline)
                    if count == 0 { return try parser.finish() }
                    if let response = try parser.feed(buffer[0..<count]) { return response }
                }
            } onCancel: {
                stop.raise()
            }
        } catch let error as NetworkError where error.kind == .timedOut {
            throw HTTPRequestError(.timedOut, server: target.server, "\(target.server): \(error)")
        } catch let error as NetworkError {
            throw HTTPRequestError(.connectFailed, server: target.server, "\(target.server): \(error)")
        } catch {
            throw target.failure(error)
        }
    }

    /// `15 s`, `0.5 s`.
    static func describe(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(seconds) s" : "\(Double(milliseconds) / 1000) s"
    }
}
