// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import CurlClient
import ExternalUserAgentNet

/// One request of ``HTTPRequestClient`` through libcurl (`CurlClient`, opened with dlopen on first use): `https`,
/// and plain `http` to a DNS name. libcurl verifies the certificate chain against the system's trust store (or
/// ``caFile``) and the host name (an IP literal against the certificate's IP addresses), resolves names without
/// blocking past the deadline, and takes proxies from the environment as curl does (never for a loopback host).
/// It runs on a Dispatch worker so no task thread blocks; cancelling the task ends the wait at once. Headers
/// are checked by ``HTTPRequestClient``.
struct CurlExchange {
    var target: HTTPTarget
    var maximumBodyBytes: Int
    /// A PEM file of the CAs to trust instead of the system's store.
    var caFile: String?
    /// How a message names the time limit (``HTTPRequestClient``'s wording).
    var limitText: String

    /// Sends the request (curl adds Host and Content-Length) and reads the whole response by `deadline`.
    func run(
        _ method: String, headers: [(name: String, value: String)], body: [UInt8]?, deadline: ContinuousClock.Instant
    )
        async throws -> HTTPRequestClient.Response
    {
        let request = CurlRequest(method: method, url: target.curlURL, headers: headers, body: body)
        let exchange = self
        return try await HTTPRequestClient.onBlockingThread(target, deadline: deadline) { stop, limit in
            try exchange.send(request, limit: limit, stop: stop)
        }
    }

    private func send(_ request: CurlRequest, limit: Duration, stop: StopSignal) throws -> HTTPRequestClient.Response {
        do throws(CurlError) {
            let configuration = CurlClient.Configuration(
                caFile: caFile, maximumBodyBytes: maximumBodyBytes,
                connectTimeout: limit, userAgent: "eua")
            let response = try CurlClient(configuration).send(request, timeout: limit, stopDescriptor: stop.descriptor)
            return .init(status: response.status, headers: response.headers, body: response.body)
        } catch {
            throw failure(error)
        }
    }

    /// The curl failure as an ``HTTPRequestError`` naming the server only (curl's own text names the URL's path).
    private func failure(_ error: CurlError) -> any Error {
        let server = target.server
        let detail = Self.detail(error.description)
        switch error.kind {
        case .stopped:
            return CancellationError()
        case .timedOut:
            return HTTPRequestError(
                .timedOut, server: server,
                "\(server) did not answer within \(limitText); check that it is the right server and that it is up, or allow more time"
            )
        case .connect where detail.lowercased().contains("resolve"):
            return HTTPRequestError(
                .connectFailed, server: server,
                "the host name '\(target.host)' of \(server) could not be resolved (\(detail)); check the URL and the network"
            )
        case .connect where detail.lowercased().contains("refused") || detail.contains("Couldn't connect"):
            return HTTPRequestError(
                .connectFailed, server: server,
                "\(server) refused the connection; check that the server is running and that the URL's host and port are right"
            )
        case .connect:
            return HTTPRequestError(
                .connectFailed, server: server,
                "could not connect to \(server) (\(detail)); check the URL and the network")
        case .untrustedCertificate:
            let lowered = detail.lowercased()
            let reason =
                lowered.contains("subject name") || lowered.contains("does not match")
                    || lowered.contains("no alternative")
                ? "the certificate is not for this host (\(detail))"
                : "certificate verify failed (\(detail))"
            return tlsFailure(reason)
        case .caFile:
            return HTTPRequestError(
                .tlsFailed, server: server,
                "TLS with \(server) could not be set up: the CA file \(caFile ?? "(system)") could not be read as PEM certificates (\(detail))"
            )
        case .tls:
            return tlsFailure(detail)
        case .tooLarge:
            return HTTPRequestError(
                .bodyTooLarge, server: server,
                "the response from \(server) is larger than \(maximumBodyBytes) bytes, the limit "
                    + "(OAuthHTTP.maximumBodyBytes); check the URL, or raise the limit")
        case .cutShort:
            return HTTPRequestError(
                .connectionClosed, server: server,
                "\(server) closed the connection before the whole response had arrived (\(detail)); try again, and check "
                    + "that the URL's port is an \(target.scheme) server")
        case .unavailable:
            return HTTPRequestError(
                .failed, server: server,
                "\(target.scheme) requests to \(server) need libcurl, which could not be used (\(detail)); install libcurl4 "
                    + "(Debian: apt-get install libcurl4)")
        default:
            return HTTPRequestError(.failed, server: server, "the request to \(server) failed: \(detail)")
        }
    }

    private func tlsFailure(_ reason: String) -> HTTPRequestError {
        HTTPRequestError(
            .tlsFailed, server: target.server,
            "TLS with \(target.server) failed: \(reason); check that the server speaks https on that port, with a "
                + "certificate for '\(target.host)' that this system trusts")
    }

    /// CurlClient's words without its `METHOD URL: ` prefix, which names the path.
    private static func detail(_ description: String) -> String {
        guard let colon = description.firstRange(of: ": ") else { return description }
        return String(description[colon.upperBound...])
    }
}
