// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentSystem

/// Runs blocking work (a child process, a polling loop) on a thread of its own (`BlockingCall`) and awaits it, so a
/// test never holds one of Swift's few cooperative threads (two on a two-core machine) while it waits. Not on
/// Dispatch's global queue: on Linux its threads are the cooperative pool's own.
public func offThePool<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await BlockingCall.run(name: "eua-test-wait", work)
}
