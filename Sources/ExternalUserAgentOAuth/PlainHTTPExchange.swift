// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import ExternalUserAgentNet

/// One plain-`http` request of ``HTTPRequestClient`` over ExternalUserAgentNet's blocking sockets and its fuzzed response
/// parser (`FuzzHTTPResponse`), on a Dispatch worker so no task thread blocks, and libcurl is never opened for it.
/// Used for IP literals and localhost only (``HTTPRequestClient``): there is then no DNS query, whose blocking
/// lookup neither the deadline nor a cancellation would end. Cancelling the task ends every other wait at once,
/// and the deadline bounds them all.
struct PlainHTTPExchange {
    var target: HTTPTarget
    var maximumBodyBytes: Int
    /// How a message names the time limit (``HTTPRequestClient``'s wording).
    var limitText: String

    /// Sends the request (Host, `Connection: close` and, with a body, Content-Length added) and reads the whole response.
    func run(
        _ method: String, headers: [(name: String, value: String)], body: [UInt8]?, deadline: ContinuousClock.Instant
    )
        async throws -> HTTPRequestClient.Response
    {
        var lines = ["\(method) \(target.requestTarget) HTTP/1.1", "Host: \(target.hostHeader)"]
        lines += headers.map { "\($0.name): \($0.value)" }
        lines.append("Connection: close")
        if let body { lines.append("Content-Length: \(body.count)") }
        let request = Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + (body ?? [])
        let exchange = self
        return try await HTTPRequestClient.onBlockingThread(target, deadline: deadline) { stop, limit in
            try exchange.exchange(request, limit: limit, stop: stop)
        }
    }

    private func exchange(_ request: [UInt8], limit: Duration, stop: StopSignal) throws -> HTTPRequestClient.Response {
        let deadline = Deadline(after: limit)
        let connection: TCPConnection
        do {
            connection = try TCPConnection.connect(host: target.host, port: target.port, deadline: deadline, stop: stop)
        } catch {
            throw connectFailure(error)
        }
        var parser = HTTPResponseParser(maximumBodyBytes: maximumBodyBytes)
        do {
            try connection.send(request, until: deadline)
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                let count = try connection.receive(into: &buffer, until: deadline)
                let response = count == 0 ? try parser.finish() : try parser.feed(buffer[0..<count])
                if let response {
                    return .init(
                        status: response.status, headers: response.headers.map { ($0.name, $0.value) },
                        body: response.body)
                }
            }
        } catch let error as NetworkError {
            throw exchangeFailure(error)
        } catch let error as HTTPParseError {
            throw parseFailure(error)
        }
    }

    private func connectFailure(_ error: NetworkError) -> any Error {
        let server = target.server
        switch error.kind {
        case .stopped:
            return CancellationError()
        case .timedOut:
            return HTTPRequestError(
                .timedOut, server: server,
                "no connection to \(server) within \(limitText); check the host, the port and the network, or allow more time"
            )
        case .failed where error.description.contains("cannot be resolved"):
            return HTTPRequestError(
                .connectFailed, server: server,
                "the host name '\(target.host)' of \(server) could not be resolved; check the URL and the network")
        case .failed where error.description.contains(String(cString: strerror(ECONNREFUSED))):
            return HTTPRequestError(
                .connectFailed, server: server,
                "\(server) refused the connection; check that the server is running and that the URL's host and port are right"
            )
        case .failed:
            return HTTPRequestError(
                .connectFailed, server: server,
                "could not connect to \(server) (\(error)); check the URL and the network")
        }
    }

    private func exchangeFailure(_ error: NetworkError) -> any Error {
        switch error.kind {
        case .stopped:
            return CancellationError()
        case .timedOut:
            return HTTPRequestError(
                .timedOut, server: target.server,
                "\(target.server) did not answer within \(limitText); check that it is the right server and that it is up, or allow more time"
            )
        case .failed:
            return HTTPRequestError(
                .connectionClosed, server: target.server,
                "the connection to \(target.server) failed before the whole response had arrived (\(error)); try again")
        }
    }

    private func parseFailure(_ error: HTTPParseError) -> HTTPRequestError {
        let server = target.server
        if error.description.hasPrefix("the response body is larger than") {
            return HTTPRequestError(
                .bodyTooLarge, server: server,
                "the response from \(server) is larger than \(maximumBodyBytes) bytes, the limit "
                    + "(OAuthHTTP.maximumBodyBytes); check the URL, or raise the limit")
        }
        if error.description.hasPrefix("the connection closed") {
            return HTTPRequestError(
                .connectionClosed, server: server,
                "\(server) closed the connection before the whole response had arrived (\(error)); try again, and check "
                    + "that the URL's port is an http server")
        }
        return HTTPRequestError(
            .failed, server: server,
            "the response from \(server) is not valid HTTP/1.1 (\(error)); check that the URL's port is an http server")
    }
}
