// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentSystem
import ExternalUserAgentNet

/// One HTTP request with the whole response read into memory: plain `http` to an IP literal or localhost over
/// ExternalUserAgentNet's sockets (``PlainHTTPExchange``), `https` and plain `http` to a DNS name through libcurl
/// (``CurlExchange``, opened with dlopen on the first such request).
///
/// No SwiftNIO: an event loop, its threads and a second TLS stack in every `eua login` process cost more start-up
/// time and memory than the few small requests of a sign-in need (Benchmarks/README.md, "Levers"). `timeout`
/// bounds everything from the name lookup to the last byte of the body; https verifies the certificate chain and
/// the host name (by IP address for an IP literal).
struct HTTPRequestClient: Sendable {
    struct Response: Sendable {
        var status: Int
        /// Every header field as sent, in order.
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        /// The first field named `name` (any case).
        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    /// How long a request may take, connecting included.
    var timeout: Duration
    /// The largest response body accepted.
    var maximumBodyBytes: Int
    /// A PEM file of the CAs to trust for https; `nil` for the system's trust store.
    var caFile: String?
    /// `timeout` is what was left of the whole flow's time (``OAuthHTTP/deadline``): messages say so.
    var limitedByDeadline = false

    /// How a message names the time limit: `15 s`, or `1.2 s, what was left of the sign-in's time`.
    private var limitText: String {
        timeout.spoken + (limitedByDeadline ? ", what was left of the whole sign-in's time limit" : "")
    }

    /// Whether `target` goes over ExternalUserAgentNet's plain sockets: plain `http` where no name server is asked (an IP
    /// literal, localhost). ExternalUserAgentNet's blocking name lookup would not end at the deadline or on cancellation;
    /// libcurl's does, so an `http` DNS name goes through libcurl like `https`.
    static func usesPlainSockets(_ target: HTTPTarget) -> Bool {
        !target.isTLS && (target.isIPLiteral || target.host.lowercased() == "localhost")
    }

    /// Sends `method` (`GET` or `POST`) with `headers` and `body` to `url` and reads the whole response, within
    /// `timeout` of `start`.
    func execute(
        _ method: String, _ url: URL, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil,
        start: ContinuousClock.Instant = .now
    ) async throws -> Response {
        let target = try HTTPTarget(url)
        // A value that would break the message (a token with a line break in it) is never sent, on either path.
        if let bad = headers.first(where: { ($0.name + $0.value).utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 } }
        ) {
            throw HTTPRequestError(
                .failed, server: target.server,
                "a header for \(target.server) holds a line break ('\(bad.name)'); nothing was sent")
        }
        let deadline = start + timeout
        if Self.usesPlainSockets(target) {
            return try await PlainHTTPExchange(target: target, maximumBodyBytes: maximumBodyBytes, limitText: limitText)
                .run(method, headers: headers, body: body, deadline: deadline)
        }
        return try await CurlExchange(
            target: target, maximumBodyBytes: maximumBodyBytes, caFile: caFile, limitText: limitText
        )
        .run(method, headers: headers, body: body, deadline: deadline)
    }

    /// Runs the blocking `exchange` on a thread of its own (``BlockingCall``), so no task thread blocks, with a fresh
    /// stop signal that cancelling the task raises (the exchange's waits end at once then) and the time left until
    /// `deadline` as it starts there (at least 1 ms: a request whose time is up still gets a chance to say so).
    static func onBlockingThread(
        _ target: HTTPTarget, deadline: ContinuousClock.Instant,
        _ exchange: @escaping @Sendable (StopSignal, Duration) throws -> Response
    )
        async throws -> Response
    {
        let stop: StopSignal
        do {
            stop = try StopSignal()
        } catch {
            throw HTTPRequestError(
                .failed, server: target.server, "the request to \(target.server) could not start: \(error)")
        }
        defer { stop.close() }
        let call: BlockingCall<Result<Response, any Error>>
        do {
            call = try BlockingCall.start {
                Result { try exchange(stop, max(ContinuousClock.now.duration(to: deadline), .milliseconds(1))) }
            }
        } catch {
            throw HTTPRequestError(
                .failed, server: target.server, "the request to \(target.server) could not start: \(error)")
        }
        // The exchange ends by itself at its deadline, or at once when the stop signal is raised.
        return try await withTaskCancellationHandler {
            try await call.value().get()
        } onCancel: {
            stop.raise()
        }
    }
}
