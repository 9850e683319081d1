// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentSystem
/// Why a blocking network step did not complete: its deadline passed, its stop signal was raised,
/// or the system refused it.
package struct NetworkError: Error, CustomStringConvertible, Sendable {
    package enum Kind: Sendable {
        case timedOut, stopped, failed
    }

    package var kind: Kind
    package var description: String

    /// `step` (such as "connecting to 127.0.0.1:8400") did not finish within `limit`.
    package static func timedOut(_ step: String, after limit: Duration) -> NetworkError {
        NetworkError(kind: .timedOut, description: "\(step) took longer than \(limit.spoken)")
    }

    /// The work was cancelled through its ``StopSignal``.
    package static let stopped = NetworkError(kind: .stopped, description: "stopped (cancelled)")

    package static func failed(_ description: String) -> NetworkError {
        NetworkError(kind: .failed, description: description)
    }
}
