// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif
import ExternalUserAgentNet

/// The listening sockets of one flow: 127.0.0.1 and (when it exists) [::1] on the same port, and the
/// redirect URI they answer.
struct LoopbackListeners {
    /// The listening sockets, open until ``close()``.
    private(set) var descriptors: [Int32]
    let port: Int
    let path: String
    let redirectURI: String

    struct StartFailure: Error {
        var message: String
    }

    /// Binds the first usable port of `options` (the OS picks one when none is given).
    static func bind(options: LoopbackOptions) throws(StartFailure) -> LoopbackListeners {
        let path = options.path ?? LoopbackOptions.randomPath()
        let availability = LoopbackAvailability.probe()
        let wantIPv6 = options.ipv6 != .false && availability.ipv6
        if options.ipv6 == .true && !availability.ipv6 {
            throw StartFailure(message: "ipv6=true, but [::1] cannot be bound on this machine; use ipv6=auto or false")
        }
        guard availability.ipv4 || options.ipv6 == .true else {
            throw StartFailure(message: "127.0.0.1 cannot be bound on this machine (no IPv4 loopback)")
        }
        let primaryHost = options.ipv6 == .true ? "::1" : "127.0.0.1"
        let uriHost = options.ipv6 == .true ? "[::1]" : "127.0.0.1"
        let candidates: [Int] = options.ports.map { Array($0) } ?? [0, 0, 0]
        var lastError = ""
        for candidate in candidates {
            var bound: [Int32] = []
            do throws(SocketError) {
                bound.append(try LoopbackSocket.listen(host: primaryHost, port: candidate))
                let port = try LoopbackSocket.port(of: bound[0])
                if wantIPv6 {
                    let secondHost = primaryHost == "::1" ? "127.0.0.1" : "::1"
                    do throws(SocketError) {
                        bound.append(try LoopbackSocket.listen(host: secondHost, port: port))
                    } catch  where error.code != EADDRINUSE {
                        // The other family is not usable here: one loopback family alone is fine.
                    }
                }
                return LoopbackListeners(
                    descriptors: bound, port: port, path: path,
                    redirectURI: options.redirectURI?.uri(port: port) ?? "http://\(uriHost):\(port)\(path)")
            } catch {
                for fd in bound { _ = Glibc.close(fd) }
                guard error.code == EADDRINUSE else {
                    throw StartFailure(message: "could not listen on the loopback interface: \(error)")
                }
                // Someone holds this port (on either family): try the next candidate.
                lastError = "port \(candidate) is already in use"
            }
        }
        if let range = options.ports {
            let what =
                range.count == 1
                ? "port \(range.lowerBound) is already in use"
                : "every port from \(range.lowerBound) to \(range.upperBound) is in use"
            throw StartFailure(
                message: "\(what) on 127.0.0.1; stop the program holding it or choose another port "
                    + "(the receiver option port or port-range)")
        }
        throw StartFailure(message: "could not get a free loopback port: \(lastError)")
    }

    /// Closes the listening sockets (again is harmless): the port refuses connections from now on.
    mutating func close() {
        for fd in descriptors { _ = Glibc.close(fd) }
        descriptors = []
    }
}
